//! The content-addressed verdict cache: key = sha256 over the vouch version, the spec's bytes,
//! the source (sha256 and file name), and every artifact's name and sha256 plus the bundle's
//! other entry names (they matter to the manifest check). Never keyed on run ids or paths.
//! Entries are small JSON files under `<dir>/<2 hex>/<key>.json`; a corrupt entry is a miss.

use super::results::{CheckOutcome, RunVerdict};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use vouch_core::bundle::{sha256_hex, Bundle};
use vouch_core::spec::Spec;

pub struct Cache {
    dir: PathBuf,
    prefix: String,
}

#[derive(Serialize, Deserialize)]
struct Entry {
    verdict: RunVerdict,
    checks: Vec<CheckOutcome>,
}

/// The default cache directory: the user's cache dir, else a temp dir.
pub fn default_dir() -> PathBuf {
    dirs::cache_dir()
        .unwrap_or_else(std::env::temp_dir)
        .join("vouch")
        .join("verdicts")
}

impl Cache {
    pub fn open(dir: PathBuf, spec: &Spec) -> Result<Cache, String> {
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create cache dir `{}`: {e}", dir.display()))?;
        let prefix = format!(
            "vouch {}\n{}\n",
            env!("CARGO_PKG_VERSION"),
            sha256_hex(spec.text.as_bytes())
        );
        Ok(Cache { dir, prefix })
    }

    /// What every key starts with: the vouch version and the spec's sha256.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The directory the entries live under.
    pub fn dir(&self) -> &std::path::Path {
        &self.dir
    }

    pub fn key(&self, source_sha: &str, source_name: &str, bundle: &Bundle) -> String {
        let mut text = self.prefix.clone();
        text.push_str(source_sha);
        text.push('\n');
        text.push_str(source_name);
        text.push('\n');
        for a in bundle.artifacts.values() {
            text.push_str(&format!("{} {}\n", a.name, a.sha256));
        }
        for n in &bundle.names {
            text.push_str(&format!("entry {n}\n"));
        }
        for f in &bundle.findings {
            text.push_str(&format!("finding {} {}\n", f.id, f.message));
        }
        sha256_hex(text.as_bytes())
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(&key[..2]).join(format!("{key}.json"))
    }

    pub fn get(&self, key: &str) -> Option<(RunVerdict, Vec<CheckOutcome>)> {
        let bytes = std::fs::read(self.path(key)).ok()?;
        let e: Entry = serde_json::from_slice(&bytes).ok()?;
        Some((e.verdict, e.checks))
    }

    pub fn put(&self, key: &str, v: &(RunVerdict, Vec<CheckOutcome>)) {
        let path = self.path(key);
        let entry = Entry {
            verdict: v.0,
            checks: v.1.clone(),
        };
        let Ok(bytes) = serde_json::to_vec(&entry) else {
            return;
        };
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        // Write then rename, so a concurrent reader never sees half an entry.
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        if std::fs::write(&tmp, bytes).is_ok() {
            let _ = std::fs::rename(&tmp, &path);
        }
    }
}
