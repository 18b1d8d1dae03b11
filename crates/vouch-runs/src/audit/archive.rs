//! Read `.zip` and `.tar.gz` archives entirely in memory, under limits, and split them into
//! units (runs or bare bundles). No entry is ever written to disk; entries with absolute paths
//! or `..` components are refused, links and devices are skipped.

use std::io::Read;

/// Limits on one archive (documented in docs/security.md).
#[derive(Clone, Copy, Debug)]
pub struct ArchiveLimits {
    pub max_entries: usize,
    /// Total bytes expanded from one archive.
    pub max_total_bytes: u64,
    /// Expanded size / compressed size, over the whole archive.
    pub max_ratio: u64,
    /// Largest single entry (the artifact limit).
    pub max_entry_bytes: u64,
}

impl ArchiveLimits {
    pub fn new(max_entry_bytes: u64) -> ArchiveLimits {
        ArchiveLimits {
            max_entries: 10_000,
            max_total_bytes: 256 * 1024 * 1024,
            max_ratio: 200,
            max_entry_bytes,
        }
    }
}

/// An archive's regular files: normalised relative path → bytes.
#[derive(Debug, Default)]
pub struct Contents {
    pub files: Vec<(String, Vec<u8>)>,
    /// Entries refused or skipped, with why (reported as info by the audit).
    pub skipped: Vec<String>,
}

impl Contents {
    /// Admit one entry: only a regular file with a safe relative path, within the budget; any
    /// other entry is skipped with the reason (and still counts towards the entry limit).
    fn admit(
        &mut self,
        budget: &mut Budget,
        raw: &str,
        regular: bool,
        reader: impl Read,
    ) -> Result<(), String> {
        if !regular {
            budget.entries += 1;
            self.skipped.push(format!("`{raw}` is not a regular file"));
            return Ok(());
        }
        let Some(path) = safe_entry_path(raw) else {
            budget.entries += 1;
            self.skipped
                .push(format!("`{raw}` has an absolute path or `..`"));
            return Ok(());
        };
        match budget.take(reader, &path)? {
            Some(b) => self.files.push((path, b)),
            None => self.skipped.push(format!(
                "`{path}` is larger than the {} artifact limit (the spec's `{}` raises it)",
                vouch_core::report::human_bytes(budget.limits.max_entry_bytes),
                vouch_core::report::ARTIFACT_LIMIT_KEY
            )),
        }
        Ok(())
    }
}

/// Normalise an entry name: forward slashes, no leading `./`; `None` for absolute paths and
/// `..` components.
pub fn safe_entry_path(name: &str) -> Option<String> {
    let name = name.replace('\\', "/");
    if name.starts_with('/') || name.contains(':') && name.len() > 1 && name.as_bytes()[1] == b':' {
        return None;
    }
    let mut parts = Vec::new();
    for part in name.split('/') {
        match part {
            "" | "." => continue,
            ".." => return None,
            p => parts.push(p),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

pub fn read(name: &str, bytes: &[u8], limits: ArchiveLimits) -> Result<Contents, String> {
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".zip") {
        read_zip(bytes, limits)
    } else {
        read_tar_gz(bytes, limits)
    }
}

struct Budget {
    limits: ArchiveLimits,
    compressed: u64,
    total: u64,
    entries: usize,
}

impl Budget {
    fn take(&mut self, reader: impl Read, path: &str) -> Result<Option<Vec<u8>>, String> {
        self.entries += 1;
        if self.entries > self.limits.max_entries {
            return Err(format!("more than {} entries", self.limits.max_entries));
        }
        let mut buf = Vec::new();
        let cap = self.limits.max_entry_bytes + 1;
        reader
            .take(cap)
            .read_to_end(&mut buf)
            .map_err(|e| format!("entry `{path}` is corrupt: {e}"))?;
        self.total += buf.len() as u64;
        if self.total > self.limits.max_total_bytes {
            return Err(format!(
                "expands to more than {} (vouch reads at most that much of one archive)",
                vouch_core::report::human_bytes(self.limits.max_total_bytes)
            ));
        }
        if self.total > self.compressed.max(1) * self.limits.max_ratio && self.total > 1024 * 1024 {
            return Err(format!(
                "expands more than {}× its compressed size (a decompression bomb?)",
                self.limits.max_ratio
            ));
        }
        if buf.len() as u64 > self.limits.max_entry_bytes {
            return Ok(None);
        }
        Ok(Some(buf))
    }
}

fn read_zip(bytes: &[u8], limits: ArchiveLimits) -> Result<Contents, String> {
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|e| format!("not a readable zip: {e}"))?;
    if zip.len() > limits.max_entries {
        return Err(format!("more than {} entries", limits.max_entries));
    }
    let mut budget = Budget {
        limits,
        compressed: bytes.len() as u64,
        total: 0,
        entries: 0,
    };
    let mut out = Contents::default();
    for i in 0..zip.len() {
        let entry = zip
            .by_index(i)
            .map_err(|e| format!("entry {i} is corrupt: {e}"))?;
        let raw = entry.name().to_string();
        if entry.is_dir() {
            continue;
        }
        let regular = entry.is_file() && !entry.is_symlink();
        out.admit(&mut budget, &raw, regular, entry)?;
    }
    Ok(out)
}

/// A decompressed stream that fails once it has produced `limit` bytes. The tar reader inflates
/// what it skips (entries refused, the tail of an oversized entry) and buffers GNU long names
/// whole, so without this cap a small `.tar.gz` could take minutes or gigabytes.
struct Inflated<R> {
    inner: R,
    produced: u64,
    limit: u64,
}

impl<R: Read> Read for Inflated<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.produced += n as u64;
        if self.produced > self.limit {
            return Err(std::io::Error::other(format!(
                "expands to more than {} bytes (a decompression bomb?)",
                self.limit
            )));
        }
        Ok(n)
    }
}

fn read_tar_gz(bytes: &[u8], limits: ArchiveLimits) -> Result<Contents, String> {
    let limit = limits.max_total_bytes.min(
        (bytes.len() as u64)
            .saturating_mul(limits.max_ratio)
            .max(16 << 20),
    );
    let gz = Inflated {
        inner: flate2::read::MultiGzDecoder::new(bytes),
        produced: 0,
        limit,
    };
    let mut tar = tar::Archive::new(gz);
    let mut budget = Budget {
        limits,
        compressed: bytes.len() as u64,
        total: 0,
        entries: 0,
    };
    let mut out = Contents::default();
    let entries = tar
        .entries()
        .map_err(|e| format!("not a readable tar.gz: {e}"))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("corrupt tar.gz: {e}"))?;
        let raw = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        let kind = entry.header().entry_type();
        if kind.is_dir() {
            budget.entries += 1;
            continue;
        }
        out.admit(&mut budget, &raw, kind.is_file(), entry)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_absolute_and_parent_paths() {
        assert_eq!(
            safe_entry_path("runs/a/bundle/x.csv").as_deref(),
            Some("runs/a/bundle/x.csv")
        );
        assert_eq!(safe_entry_path("./a//b").as_deref(), Some("a/b"));
        assert_eq!(safe_entry_path("/etc/passwd"), None);
        assert_eq!(safe_entry_path("a/../../b"), None);
        assert_eq!(safe_entry_path("C:/x"), None);
    }
}
