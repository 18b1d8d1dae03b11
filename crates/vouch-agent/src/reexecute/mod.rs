//! `vouch verify --reexecute`: run the bundle's own script again, isolated, on a copy of the
//! user's trusted source, and see whether it reproduces what the bundle claims (issue 6).
//!
//! The script runs in [`jail`] (bubblewrap, no network, read-only system, limits); the CSV tables
//! and the manifest's contract fields it writes must equal the bundle's value for value
//! (`script.reproducible`, an error: a bundle edited after the script ran, or produced by another
//! script or from another source, is not what this script makes); the memo and the chart are
//! compared by hash (`script.reproducible_bytes`, a warning: renderers may embed dates or ids).
//! A script that fails, is killed by a limit or times out is `script.reexecution_failed`.
//! Without bubblewrap or a system python3 nothing runs and the caller gets an error (exit 2).

pub mod compare;
pub mod jail;

use compare::Difference;
use jail::{Ending, Jail, JailError, Limits};
use std::path::{Path, PathBuf};
use vouch_core::bundle::Bundle;
use vouch_core::report::CheckId;
use vouch_core::report::Finding;
use vouch_core::spec::Spec;

/// Differences shown per artifact; the rest are counted.
const MAX_LISTED: usize = 12;
/// Lines of the script's standard error quoted when it fails.
const STDERR_LINES: usize = 12;

#[derive(Debug, thiserror::Error)]
pub enum ReexecuteError {
    #[error("--reexecute is not possible here: {0}")]
    Unavailable(String),
    #[error("--reexecute could not run the sandbox: {0}")]
    Sandbox(String),
    #[error("--reexecute: {0}")]
    Io(String),
}

impl From<JailError> for ReexecuteError {
    fn from(e: JailError) -> ReexecuteError {
        match e {
            JailError::Unavailable(m) => ReexecuteError::Unavailable(m),
            JailError::Spawn(m) => ReexecuteError::Sandbox(m),
        }
    }
}

/// Check that re-execution is possible on this host (bubblewrap and a system python3).
pub fn available() -> Result<(), ReexecuteError> {
    Jail::locate().map(|_| ()).map_err(Into::into)
}

/// Re-run the bundle's script on a copy of `source` and compare what it writes with `bundle`.
pub fn reexecute(
    spec: &Spec,
    source: &Path,
    bundle: &Bundle,
    limits: &Limits,
) -> Result<Vec<Finding>, ReexecuteError> {
    let jail = Jail::locate()?;
    let names = &spec.artifacts;
    let Some(script) = bundle.get(&names.script) else {
        return Ok(vec![Finding::fail(
            CheckId::ScriptReexecutionFailed,
            "not re-executed: the bundle has no readable script (see the bundle findings)",
        )
        .artifact(names.script.as_str())]);
    };
    let source_bytes = read_source(source, spec.limits.max_artifact_bytes)?;
    let upload = upload_name(spec, source, bundle);
    let dir = ScratchDir::create()?;
    let io = |e: std::io::Error| ReexecuteError::Io(format!("{}: {e}", dir.0.display()));
    std::fs::write(dir.0.join(&names.script), &script.bytes).map_err(io)?;
    std::fs::write(dir.0.join(&upload), &source_bytes).map_err(io)?;
    let ran = jail.run(&dir.0, &names.script, limits)?;
    let script_name = names.script.as_str();
    if ran.ending != Ending::Exit(0) {
        return Ok(vec![Finding::fail(
            CheckId::ScriptReexecutionFailed,
            format!(
                "re-running `{script_name}` under bubblewrap (no network, read-only system, \
                 /mnt/data holding only `{upload}`) {}{}; the bundle cannot have been produced by \
                 this script as it stands",
                describe(&ran.ending, limits),
                stderr_tail(&ran.stderr)
            ),
        )
        .artifact(script_name)]);
    }
    let regenerated =
        Bundle::load_dir(&dir.0, spec).map_err(|e| ReexecuteError::Io(e.to_string()))?;
    let mut out = Vec::new();
    let mut reproduced = Vec::new();
    for (name, kind) in [
        (&names.metrics, Kind::Table),
        (&names.movements, Kind::Table),
        (&names.manifest, Kind::Manifest),
        (&names.memo, Kind::Bytes),
        (&names.chart, Kind::Bytes),
    ] {
        let Some(ours) = bundle.get(name) else {
            continue; // bundle.* reported it
        };
        let Some(theirs) = regenerated.get(name) else {
            out.push(
                Finding::fail(
                    CheckId::ScriptReproducible,
                    format!(
                        "re-running the script did not write a usable `{name}` (missing, empty, \
                         a link or over the size limit); the bundle's copy came from elsewhere"
                    ),
                )
                .artifact(name.as_str()),
            );
            continue;
        };
        if kind == Kind::Bytes {
            if ours.sha256 == theirs.sha256 {
                reproduced.push(name.as_str());
            } else {
                out.push(
                    Finding::warn(
                        CheckId::ScriptReproducibleBytes,
                        format!(
                            "the script wrote a different `{name}` (sha256 {} in the bundle, {} \
                             re-run); renderers may embed dates or random ids, but edited text or \
                             a chart drawn by something else looks the same",
                            &ours.sha256[..12],
                            &theirs.sha256[..12]
                        ),
                    )
                    .artifact(name.as_str()),
                );
            }
            continue;
        }
        let (Ok(a), Ok(b)) = (ours.text(), theirs.text()) else {
            if ours.bytes != theirs.bytes {
                out.push(
                    Finding::fail(
                        CheckId::ScriptReproducible,
                        format!("the script wrote a different `{name}` (not UTF-8 text, compared byte for byte)"),
                    )
                    .artifact(name.as_str()),
                );
            }
            continue;
        };
        let diffs = match kind {
            Kind::Table => compare::csv_differences(a, b),
            _ => compare::manifest_differences(a, b),
        };
        match diffs {
            Ok(d) if d.is_empty() => reproduced.push(name.as_str()),
            Ok(d) => report_differences(name, &d, &mut out),
            Err(why) => out.push(
                Finding::fail(
                    CheckId::ScriptReproducible,
                    format!("`{name}` could not be compared with the re-run's: {why}"),
                )
                .artifact(name.as_str()),
            ),
        }
    }
    out.push(
        Finding::info(
            CheckId::ScriptReexecuted,
            format!(
                "re-ran `{script_name}` under bubblewrap in {:.1} s on a copy of the source named \
                 `{upload}`; reproduced exactly: {}",
                ran.elapsed.as_secs_f64(),
                if reproduced.is_empty() {
                    "nothing".to_string()
                } else {
                    reproduced.join(", ")
                }
            ),
        )
        .artifact(script_name),
    );
    Ok(out)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Table,
    Manifest,
    Bytes,
}

fn report_differences(name: &str, diffs: &[Difference], out: &mut Vec<Finding>) {
    for d in diffs.iter().take(MAX_LISTED) {
        let mut f = Finding::fail(
            CheckId::ScriptReproducible,
            format!(
                "{}: the bundle says {}, the script re-run on the source writes {}; the bundle \
                 was not produced by this script from this source (edited afterwards?)",
                d.place, d.bundle, d.regenerated
            ),
        )
        .artifact(name);
        if let Some(line) = d.line {
            f = f.line(line);
        }
        out.push(f);
    }
    if diffs.len() > MAX_LISTED {
        out.push(
            Finding::fail(
                CheckId::ScriptReproducible,
                format!(
                    "… and {} more differences in `{name}`",
                    diffs.len() - MAX_LISTED
                ),
            )
            .artifact(name),
        );
    }
}

fn describe(ending: &Ending, limits: &Limits) -> String {
    match ending {
        Ending::Exit(c) => format!("exited with status {c}"),
        Ending::Signal(s) => format!(
            "was killed by signal {s} (a limit: {} s CPU, {} MiB memory, {} MiB per file)",
            limits.cpu_seconds,
            limits.address_space_bytes >> 20,
            limits.file_bytes >> 20
        ),
        Ending::Timeout => format!(
            "did not finish within {} s and was killed",
            limits.wall.as_secs()
        ),
    }
}

fn stderr_tail(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        return String::new();
    }
    let tail = &lines[lines.len().saturating_sub(STDERR_LINES)..];
    format!("; its standard error ends:\n{}\n", tail.join("\n"))
}

/// The name the agent saw the source under: the manifest's `input_filename` (its base name, upload
/// prefix kept) when it is a plain file name, else the source's own name.
fn upload_name(spec: &Spec, source: &Path, bundle: &Bundle) -> String {
    let own = source
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "source.csv".into());
    let claimed = bundle
        .get(&spec.artifacts.manifest)
        .and_then(|a| a.text().ok())
        .and_then(|t| serde_json::from_str::<serde_json::Value>(t).ok())
        .and_then(|v| v.get("input_filename")?.as_str().map(str::to_string))
        .map(|s| s.rsplit(['/', '\\']).next().unwrap_or("").to_string());
    match claimed {
        Some(n) if plain_file_name(&n) && !spec.artifacts.all().contains(&n.as_str()) => n,
        _ => own,
    }
}

fn plain_file_name(n: &str) -> bool {
    !n.is_empty()
        && n.len() <= 200
        && n != "."
        && n != ".."
        && !n.chars().any(|c| c.is_control() || c == '/' || c == '\\')
}

fn read_source(path: &Path, limit: u64) -> Result<Vec<u8>, ReexecuteError> {
    let shown = path.display();
    let meta =
        std::fs::metadata(path).map_err(|e| ReexecuteError::Io(format!("`{shown}`: {e}")))?;
    if !meta.is_file() || meta.len() > limit {
        return Err(ReexecuteError::Io(format!(
            "`{shown}` is not a regular file of at most {limit} bytes"
        )));
    }
    std::fs::read(path).map_err(|e| ReexecuteError::Io(format!("`{shown}`: {e}")))
}

/// A private directory under the system temp dir, removed (without following links) on drop.
struct ScratchDir(PathBuf);

impl ScratchDir {
    fn create() -> Result<ScratchDir, ReexecuteError> {
        use std::os::unix::fs::DirBuilderExt;
        let base = std::env::temp_dir();
        sweep_stale(&base);
        for attempt in 0..16u32 {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.subsec_nanos());
            let dir = base.join(format!(
                "vouch-reexecute-{}-{nanos:x}-{attempt}",
                std::process::id()
            ));
            match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
                Ok(()) => return Ok(ScratchDir(dir)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(ReexecuteError::Io(format!(
                        "cannot create a scratch directory in {}: {e}",
                        base.display()
                    )))
                }
            }
        }
        Err(ReexecuteError::Io(
            "cannot create a scratch directory".into(),
        ))
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        remove_tree(&self.0);
    }
}

/// Removes a directory tree without following links. `remove_dir_all` holds a descriptor per
/// level, so a tree deeper than the open-file limit (a script can write one) defeats it; then
/// the tree is taken apart from the top: each subdirectory is renamed up to the root's level
/// (paths stay short, no descriptor stays open) and each emptied directory removed.
fn remove_tree(root: &Path) {
    if std::fs::remove_dir_all(root).is_ok() || std::fs::symlink_metadata(root).is_err() {
        return;
    }
    let Some(parent) = root.parent() else { return };
    let mut pending = vec![root.to_path_buf()];
    let mut moved = 0u64;
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut subdirs = Vec::new();
        for e in entries.flatten() {
            let path = e.path();
            match e.file_type() {
                Ok(t) if t.is_dir() => subdirs.push(path),
                _ => {
                    let _ = std::fs::remove_file(&path);
                }
            }
        }
        if subdirs.is_empty() {
            let _ = std::fs::remove_dir(&dir);
            continue;
        }
        pending.push(dir);
        for sub in subdirs {
            moved += 1;
            let up = parent.join(format!(
                "{}.{moved}",
                root.file_name()
                    .map_or("scratch".into(), |n| n.to_string_lossy())
            ));
            match std::fs::rename(&sub, &up) {
                Ok(()) => pending.push(up),
                Err(_) => pending.push(sub),
            }
        }
        if moved > 10_000_000 {
            return;
        }
    }
}

/// Scratch directories of earlier runs that were killed before they could clean up (their
/// process is gone): removed before a new one is made.
fn sweep_stale(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix("vouch-reexecute-")
            .and_then(|r| r.split(['-', '.']).next())
            .and_then(|p| p.parse::<libc::pid_t>().ok())
        else {
            continue;
        };
        // SAFETY: kill with signal 0 only checks that the process exists.
        let gone = unsafe { libc::kill(pid, 0) } != 0
            && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
        let own = e
            .metadata()
            .is_ok_and(|m| std::os::unix::fs::MetadataExt::uid(&m) == unsafe { libc::geteuid() });
        if gone && own {
            remove_tree(&e.path());
        }
    }
}
