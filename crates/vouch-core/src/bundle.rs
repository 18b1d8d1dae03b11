//! Safe loading of a bundle: the six artifacts as regular files only, sizes read from metadata
//! before any byte is read, symlinks never followed, FIFOs and devices never opened.
//!
//! Loading never judges content: it produces the bytes (or a `bundle.*` finding per artifact
//! that could not be taken) and each artifact's sha256 for the report.

use crate::report::registry::CheckDef;
use crate::report::CheckId;
use crate::report::{ArtifactDigest, Family, Finding};
use crate::spec::Spec;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

pub const CHECKS: &[CheckDef] = crate::checks![Family::Bundle;
    CheckId::BundleMissing, Fail, "A required artifact is not in the bundle directory.",
        why: "Without this artifact, none of the claims it should carry (metrics, flags, chart, memo, manifest or code) can be checked, and a reader cannot tell whether that part of the work was ever done.",
        fix: "Make `analyze_financials.py` write the file into the output directory under its exact contract name (the spec's `[artifacts]` table; mind spelling and case) and re-run it.";
    CheckId::BundleSymlink, Fail, "An artifact is a symbolic link; it is never followed.",
        why: "A link can point at a file outside the bundle or one that changes later, so its content is not necessarily the agent's output; vouch never follows it, and that artifact goes unchecked.",
        fix: "Replace the link with a regular file holding the content: have the script write the file itself, or copy the target over the link.";
    CheckId::BundleNotRegularFile, Fail, "An artifact is a directory, FIFO, socket or device, or a file with more than one hard link; it is never opened.",
        why: "A directory, FIFO, socket or device under an artifact's name, or a file with several hard links (which may live outside the bundle), is never opened, so that artifact goes unchecked.",
        fix: "Write the artifact as an ordinary file with one link: remove the directory or special file, copy a hard-linked file instead of linking it, then re-run the script.";
    CheckId::BundleEmpty, Fail, "An artifact has zero bytes.",
        why: "A zero-byte artifact looks delivered in a file listing but holds nothing, usually because the script failed before writing or never closed the file; a reader gets no content to rely on.",
        fix: "Find why the script wrote nothing (an exception before the write, a file not flushed or closed), fix it and re-run the script so the file holds its full content.";
    CheckId::BundleTooLarge, Fail, "An artifact exceeds `limits.max_artifact_bytes` (16 MiB by default), judged from metadata before reading.",
        why: "An artifact over the size limit is not read at all, so none of its claims is checked; a file that big is rarely the compact table, chart or memo asked for (runaway output, embedded data).",
        fix: "Remove what bloats the file (repeated rows, embedded images, debug dumps); if the size is legitimate, raise `limits.max_artifact_bytes` in the spec.";
    CheckId::BundleUnreadable, Fail, "An artifact could not be read (permissions, I/O error, or it changed while being read).",
        why: "vouch could not read the artifact (permissions, an I/O error, or it changed while being read), so nothing in it was checked and the verdict does not cover it.",
        fix: "Make the file readable by the user running vouch, make sure nothing is still writing to it, and verify again after the run has finished.";
    CheckId::BundleExtraFile, Info, "The bundle holds a file that is not one of the six artifacts.",
        why: "Reported so the reader knows the bundle holds a file outside the six artifacts: vouch ignores it, so nothing it says (notes, scratch CSVs) has been checked.",
        fix: "Nothing to fix: extra files are allowed. Remove them if the deliverable should be exactly the six artifacts, and do not treat their content as verified.";
];

#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    #[error("bundle directory `{0}` does not exist")]
    NotFound(PathBuf),
    #[error("bundle path `{0}` is not a directory")]
    NotADirectory(PathBuf),
    #[error("cannot list bundle directory `{path}`: {source}")]
    List {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// One artifact's bytes and digest.
#[derive(Clone, Debug)]
pub struct Artifact {
    pub name: String,
    pub bytes: Vec<u8>,
    pub sha256: String,
}

impl Artifact {
    pub fn new(name: impl Into<String>, bytes: Vec<u8>) -> Artifact {
        let sha256 = hex(&Sha256::digest(&bytes));
        Artifact {
            name: name.into(),
            bytes,
            sha256,
        }
    }

    /// The artifact as UTF-8 text (a leading byte-order mark is dropped).
    pub fn text(&self) -> Result<&str, std::str::Utf8Error> {
        let b = self
            .bytes
            .strip_prefix(b"\xEF\xBB\xBF")
            .unwrap_or(&self.bytes);
        std::str::from_utf8(b)
    }
}

/// A loaded bundle.
#[derive(Clone, Debug, Default)]
pub struct Bundle {
    /// Where it came from, for the report.
    pub origin: String,
    pub artifacts: BTreeMap<String, Artifact>,
    /// `bundle.*` findings from loading.
    pub findings: Vec<Finding>,
    /// Every entry name in the bundle (artifacts, extras, unreadable ones).
    pub names: std::collections::BTreeSet<String>,
}

impl Bundle {
    pub fn get(&self, name: &str) -> Option<&Artifact> {
        self.artifacts.get(name)
    }

    pub fn digests(&self) -> Vec<ArtifactDigest> {
        self.artifacts
            .values()
            .map(|a| ArtifactDigest {
                name: a.name.clone(),
                bytes: a.bytes.len() as u64,
                sha256: a.sha256.clone(),
            })
            .collect()
    }

    /// Build a bundle from in-memory files (archives, tests), applying the same rules as a
    /// directory: every required artifact present, non-empty, within the size limit.
    pub fn from_files(origin: &str, files: Vec<(String, Vec<u8>)>, spec: &Spec) -> Bundle {
        let mut bundle = Bundle {
            origin: origin.to_string(),
            ..Default::default()
        };
        let mut by_name: BTreeMap<String, Vec<u8>> = files.into_iter().collect();
        bundle.names = by_name.keys().cloned().collect();
        for name in spec.artifacts.all() {
            match by_name.remove(name) {
                None => bundle.missing(name),
                Some(bytes) if bytes.is_empty() => bundle.empty(name),
                Some(bytes) if bytes.len() as u64 > spec.limits.max_artifact_bytes => {
                    bundle.too_large(name, bytes.len() as u64, spec.limits.max_artifact_bytes)
                }
                Some(bytes) => {
                    bundle
                        .artifacts
                        .insert(name.to_string(), Artifact::new(name, bytes));
                }
            }
        }
        for name in by_name.keys() {
            bundle.extra(name);
        }
        bundle
    }

    /// Load the six artifacts from a directory.
    pub fn load_dir(dir: &Path, spec: &Spec) -> Result<Bundle, BundleError> {
        let meta = std::fs::metadata(dir).map_err(|_| BundleError::NotFound(dir.to_path_buf()))?;
        if !meta.is_dir() {
            return Err(BundleError::NotADirectory(dir.to_path_buf()));
        }
        let mut bundle = Bundle {
            origin: dir.display().to_string(),
            ..Default::default()
        };
        let limit = spec.limits.max_artifact_bytes;
        for name in spec.artifacts.all() {
            let path = dir.join(name);
            let meta = match std::fs::symlink_metadata(&path) {
                Ok(m) => m,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    bundle.missing(name);
                    continue;
                }
                Err(e) => {
                    bundle.unreadable(name, &e.to_string());
                    continue;
                }
            };
            let ft = meta.file_type();
            if ft.is_symlink() {
                bundle.findings.push(
                    Finding::fail(
                        CheckId::BundleSymlink,
                        format!("`{name}` is a symbolic link; vouch never follows links out of a bundle"),
                    )
                    .artifact(name),
                );
                continue;
            }
            if !ft.is_file() {
                bundle.findings.push(
                    Finding::fail(
                        CheckId::BundleNotRegularFile,
                        format!(
                            "`{name}` is a {}, not a regular file; it was not opened",
                            kind_of(&ft)
                        ),
                    )
                    .artifact(name),
                );
                continue;
            }
            // A hard link is another name of a file that may live outside the bundle: like a
            // symbolic link, it is not read (the archive reader skips them too).
            #[cfg(unix)]
            {
                use std::os::unix::fs::MetadataExt;
                if meta.nlink() > 1 {
                    bundle.findings.push(
                        Finding::fail(
                            CheckId::BundleNotRegularFile,
                            format!(
                                "`{name}` has {} hard links, so it may be a file from outside the \
                                 bundle; it was not opened",
                                meta.nlink()
                            ),
                        )
                        .artifact(name),
                    );
                    continue;
                }
            }
            if meta.len() == 0 {
                bundle.empty(name);
                continue;
            }
            if meta.len() > limit {
                bundle.too_large(name, meta.len(), limit);
                continue;
            }
            match read_regular(&path, limit) {
                Ok(bytes) if bytes.is_empty() => bundle.empty(name),
                Ok(bytes) => {
                    bundle
                        .artifacts
                        .insert(name.to_string(), Artifact::new(name, bytes));
                }
                Err(e) => bundle.unreadable(name, &e),
            }
        }
        let entries = std::fs::read_dir(dir).map_err(|source| BundleError::List {
            path: dir.to_path_buf(),
            source,
        })?;
        bundle.names = entries
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        let mut extras: Vec<String> = bundle
            .names
            .iter()
            .filter(|n| !spec.artifacts.all().contains(&n.as_str()))
            .cloned()
            .collect();
        extras.sort();
        for name in extras {
            bundle.extra(&name);
        }
        Ok(bundle)
    }

    fn missing(&mut self, name: &str) {
        self.findings.push(
            Finding::fail(
                CheckId::BundleMissing,
                format!("`{name}` is missing from the bundle"),
            )
            .artifact(name),
        );
    }
    fn empty(&mut self, name: &str) {
        self.findings.push(
            Finding::fail(CheckId::BundleEmpty, format!("`{name}` is empty (0 bytes)"))
                .artifact(name),
        );
    }
    fn too_large(&mut self, name: &str, size: u64, limit: u64) {
        self.findings.push(
            Finding::fail(
                CheckId::BundleTooLarge,
                format!(
                    "`{name}` is {} ({size} bytes), over the {} limit; it was not read (the \
                     spec's `{}` raises it)",
                    crate::report::human_bytes(size),
                    crate::report::human_bytes(limit),
                    crate::report::ARTIFACT_LIMIT_KEY
                ),
            )
            .artifact(name),
        );
    }
    fn unreadable(&mut self, name: &str, why: &str) {
        self.findings.push(
            Finding::fail(
                CheckId::BundleUnreadable,
                format!("`{name}` could not be read: {why}"),
            )
            .artifact(name),
        );
    }
    fn extra(&mut self, name: &str) {
        self.findings.push(
            Finding::info(
                CheckId::BundleExtraFile,
                format!("`{name}` is not one of the six artifacts (ignored)"),
            )
            .artifact(name),
        );
    }
}

fn kind_of(ft: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "FIFO";
        }
        if ft.is_socket() {
            return "socket";
        }
        if ft.is_block_device() || ft.is_char_device() {
            return "device";
        }
    }
    if ft.is_dir() {
        "directory"
    } else {
        "special file"
    }
}

/// Open without following a link and without blocking, re-check that the opened handle is a
/// regular file within the limit (the path may have been swapped since `symlink_metadata`),
/// then read at most `limit + 1` bytes.
/// Whether `name` is one plain file name: not empty, no `/`, `\\` or NUL, not `.` or `..` — a
/// name that, joined to a directory, stays directly inside it.
pub fn is_plain_file_name(name: &str) -> bool {
    !name.is_empty() && !name.contains(['/', '\\', '\0']) && name != "." && name != ".."
}

pub fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>, String> {
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = opts.open(path).map_err(|e| e.to_string())?;
    read_opened(file, limit)
}

/// The bounded read of an opened file, shared by every reader of outside files: the handle must
/// be a regular file within the limit (the path may have been swapped since it was checked),
/// and at most `limit + 1` bytes are read (a `/proc` file says it is empty).
pub fn read_opened(file: std::fs::File, limit: u64) -> Result<Vec<u8>, String> {
    let meta = file.metadata().map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("it is no longer a regular file".into());
    }
    if meta.len() > limit {
        return Err(format!("it grew past the {limit}-byte limit"));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > limit {
        return Err(format!(
            "it grew past the {limit}-byte limit while being read"
        ));
    }
    Ok(bytes)
}

pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}
