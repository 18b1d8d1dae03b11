//! Find runs, bare bundles and archives under the audit's paths. Symbolic links are never
//! followed; the walk is depth-limited.

use std::path::{Path, PathBuf};
use vouch_core::spec::Spec;

/// Something the audit will verify (an archive may hold several runs).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Found {
    /// A run directory: `run.json` and `bundle/`.
    Run(PathBuf),
    /// A bare bundle directory (holds at least one artifact).
    Bundle(PathBuf),
    /// A `.zip`, `.tar.gz` or `.tgz` file.
    Archive(PathBuf),
}

impl Found {
    pub fn path(&self) -> &Path {
        match self {
            Found::Run(p) | Found::Bundle(p) | Found::Archive(p) => p,
        }
    }
}

const MAX_DEPTH: usize = 32;

pub fn is_archive(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.ends_with(".zip") || n.ends_with(".tar.gz") || n.ends_with(".tgz")
}

/// Walk `paths`; a path that does not exist is an error (exit 2), anything else is found or
/// skipped.
pub fn discover(paths: &[PathBuf], spec: &Spec) -> Result<Vec<Found>, String> {
    let mut out = Vec::new();
    for p in paths {
        let meta = std::fs::symlink_metadata(p)
            .map_err(|e| format!("cannot read `{}`: {e}", p.display()))?;
        if meta.is_file() {
            if is_archive(&p.to_string_lossy()) {
                out.push(Found::Archive(p.clone()));
            } else {
                return Err(format!(
                    "`{}` is neither a directory nor a .zip/.tar.gz archive",
                    p.display()
                ));
            }
        } else if meta.is_dir() {
            walk(p, spec, 0, &mut out);
        } else {
            return Err(format!("`{}` is not a directory or archive", p.display()));
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

fn walk(dir: &Path, spec: &Spec, depth: usize, out: &mut Vec<Found>) {
    if depth > MAX_DEPTH {
        return;
    }
    if dir.join("run.json").is_file() && dir.join("bundle").is_dir() {
        out.push(Found::Run(dir.to_path_buf()));
        return;
    }
    if spec
        .artifacts
        .all()
        .iter()
        .any(|a| std::fs::symlink_metadata(dir.join(a)).is_ok())
    {
        out.push(Found::Bundle(dir.to_path_buf()));
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut children: Vec<(PathBuf, std::fs::FileType)> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| Some((e.path(), e.file_type().ok()?)))
        .collect();
    children.sort_by(|a, b| a.0.cmp(&b.0));
    // Each child is looked at on its own (a run directory costs two `stat`s, which dominate a
    // re-audit's start), in parallel, and the findings are joined in the sorted order.
    use rayon::prelude::*;
    let found: Vec<Vec<Found>> = children
        .into_par_iter()
        .map(|(path, ft)| {
            let mut found = Vec::new();
            if ft.is_dir() {
                walk(&path, spec, depth + 1, &mut found);
            } else if ft.is_file() && is_archive(&path.to_string_lossy()) {
                found.push(Found::Archive(path));
            }
            found
        })
        .collect();
    out.extend(found.into_iter().flatten());
}
