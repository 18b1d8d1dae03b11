//! What `vouch verify` is pointed at, decided once for every front end (the CLI and the Python
//! package): a run directory (`run.json`, `bundle/`, `source/`) or a bare bundle, the trusted
//! source it is verified against and the name the agent saw that source under. Errors are the
//! one-line reasons the CLI prints after `vouch: error: `.

use crate::audit::runner::{read_run_meta, run_source_copy, RunSourceError};
use std::path::{Path, PathBuf};
use vouch_core::source::{SourceError, Statements};
use vouch_core::spec::Spec;

/// The bundle to verify, where its trusted source comes from and the name the agent saw it
/// under (`--source-name`, else the run record's).
pub struct VerifyTarget {
    pub bundle_dir: PathBuf,
    pub source: TargetSource,
    pub source_name: Option<String>,
}

pub enum TargetSource {
    /// The user's own copy (`--source`).
    Path(PathBuf),
    /// A run directory's copy, checked against its record: where it is, its name and bytes.
    RunCopy(PathBuf, String, Vec<u8>),
}

/// A run directory (`run.json` and `bundle/`) or a bare bundle, with the source it is to be
/// verified against: `source` when given, else the run's own checked copy.
pub fn verify_target(
    dir: &Path,
    source: Option<&Path>,
    source_name: Option<&str>,
    spec: &Spec,
) -> Result<VerifyTarget, String> {
    if let Some(name) = source_name {
        if !vouch_core::bundle::is_plain_file_name(name) {
            return Err(format!(
                "--source-name must be a plain file name, got `{name}`"
            ));
        }
    }
    let source_name = source_name.map(str::to_string);
    let is_run = dir.join("run.json").is_file() && dir.join("bundle").is_dir();
    if !is_run {
        let Some(source) = source else {
            return Err(format!(
                "`{}` is a bundle, not a run directory (run.json and bundle/): give your copy of \
                 the source with --source FILE",
                dir.display()
            ));
        };
        return Ok(VerifyTarget {
            bundle_dir: dir.to_path_buf(),
            source: TargetSource::Path(source.to_path_buf()),
            source_name,
        });
    }
    let meta = read_run_meta(dir)?;
    let recorded_name = meta.source.as_ref().map(|s| s.file_name.clone());
    let source = match source {
        Some(p) => TargetSource::Path(p.to_path_buf()),
        None => match run_source_copy(dir, &meta, spec.limits.max_artifact_bytes) {
            Ok((name, bytes)) => TargetSource::RunCopy(dir.join("source").join(&name), name, bytes),
            Err(RunSourceError::Absent(why) | RunSourceError::Bad(why)) => {
                return Err(format!("`{}`: {why}", dir.display()))
            }
        },
    };
    Ok(VerifyTarget {
        bundle_dir: dir.join("bundle"),
        source,
        source_name: source_name.or(recorded_name),
    })
}

impl VerifyTarget {
    /// Reads the trusted source, under the name the agent saw it under when that differs.
    pub fn read_source(&self, spec: &Spec) -> Result<Statements, SourceError> {
        let read = match &self.source {
            TargetSource::Path(p) => Statements::read_path(p, spec),
            TargetSource::RunCopy(path, name, bytes) => {
                Statements::read_bytes(&path.display().to_string(), name, bytes, spec)
            }
        };
        read.map(|mut stmts| {
            if let Some(name) = &self.source_name {
                stmts.file_name = name.clone();
            }
            stmts
        })
    }

    /// The source file on disk (the user's copy, or the run's).
    pub fn source_path(&self) -> &Path {
        match &self.source {
            TargetSource::Path(p) | TargetSource::RunCopy(p, ..) => p,
        }
    }
}

/// The spec file at `path`, or the embedded contract.
pub fn load_spec(path: Option<&Path>) -> Result<Spec, String> {
    match path {
        None => Ok(Spec::default_spec()),
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .map_err(|e| format!("cannot read spec `{}`: {}", p.display(), error_chain(&e)))?;
            Spec::parse(&text)
                .map_err(|e| format!("invalid spec `{}`: {}", p.display(), error_chain(&e)))
        }
    }
}

/// An error and its sources on one line, joined by `: ` (what the CLI prints, anyhow's `{:#}`).
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut next = e.source();
    while let Some(s) = next {
        text.push_str(": ");
        text.push_str(&s.to_string());
        next = s.source();
    }
    text
}
