//! Running one shell command under bubblewrap, as the emulator's stand-in for a hosted container:
//! every namespace unshared (so no network), the host's file system read-only, a private `/tmp`,
//! and one writable directory mounted at `/mnt/data` (or an Agents API session's `/workspace`),
//! which is also the working directory.
//!
//! Limits: without `bwrap` nothing runs — there is no unsandboxed fallback. Output is captured up
//! to a cap per stream, and a command that outlives its timeout is killed (with its sandbox, via
//! `--die-with-parent`).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::AsyncReadExt;

/// Bytes kept per stream; the rest is read and dropped.
const CAPTURE_LIMIT: usize = 1 << 20;

#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("bubblewrap (`bwrap`) is not installed or not on PATH; the emulator never runs commands unsandboxed (install it: apt-get install -y bubblewrap)")]
    Missing,
    #[error("cannot start bubblewrap: {0}")]
    Spawn(String),
    #[error("bubblewrap is installed but cannot create a sandbox here ({0}); nothing is ever run unsandboxed")]
    Unusable(String),
}

/// How a command ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Exit(i32),
    Timeout,
}

#[derive(Clone, Debug)]
pub struct Ran {
    pub stdout: String,
    pub stderr: String,
    pub outcome: Outcome,
}

/// A located `bwrap` binary.
#[derive(Clone, Debug)]
pub struct Sandbox {
    bwrap: PathBuf,
}

impl Sandbox {
    /// Find `bwrap` on PATH.
    pub fn locate() -> Result<Sandbox, SandboxError> {
        find_on_path("bwrap")
            .map(|bwrap| Sandbox { bwrap })
            .ok_or(SandboxError::Missing)
    }

    /// Find `bwrap` and check that it can actually create a namespace sandbox here (it cannot,
    /// for instance, where user namespaces are disabled).
    pub fn locate_working() -> Result<Sandbox, SandboxError> {
        let sandbox = Sandbox::locate()?;
        let out = std::process::Command::new(&sandbox.bwrap)
            .args([
                "--unshare-all",
                "--die-with-parent",
                "--ro-bind",
                "/",
                "/",
                "--tmpfs",
                "/tmp",
                "true",
            ])
            .stdin(Stdio::null())
            .output()
            .map_err(|e| SandboxError::Spawn(e.to_string()))?;
        if out.status.success() {
            Ok(sandbox)
        } else {
            Err(SandboxError::Unusable(
                String::from_utf8_lossy(&out.stderr).trim().to_string(),
            ))
        }
    }

    /// The located `bwrap` (for `vouch verify --reexecute`'s stricter jail).
    pub fn program(&self) -> &Path {
        &self.bwrap
    }

    /// Run `command` with `sh -c` in the sandbox, `data_dir` mounted read-write at `/mnt/data`.
    pub async fn run(
        &self,
        data_dir: &Path,
        command: &str,
        timeout: Duration,
    ) -> Result<Ran, SandboxError> {
        self.run_at(data_dir, MNT_DATA, command, timeout).await
    }

    /// Run `command` with `sh -c` in the sandbox, `data_dir` mounted read-write at `mount` (an
    /// absolute path: `/mnt/data`, or an Agents API session's `/workspace`), which is also the
    /// working directory.
    pub async fn run_at(
        &self,
        data_dir: &Path,
        mount: &str,
        command: &str,
        timeout: Duration,
    ) -> Result<Ran, SandboxError> {
        let mut cmd = tokio::process::Command::new(&self.bwrap);
        cmd.args(["--unshare-all", "--die-with-parent", "--new-session"]);
        if mount == MNT_DATA {
            cmd.args(["--ro-bind", "/", "/"])
                .args(["--dev", "/dev", "--proc", "/proc"])
                .args(["--tmpfs", "/tmp", "--tmpfs", "/mnt"]);
        } else {
            // A mount point the host lacks cannot be made in a read-only bind of `/`: the root is
            // bubblewrap's own, with every top-level directory of the host bound read-only into
            // it and its symbolic links (a merged `/usr`'s `/bin`) copied.
            let top = mount
                .trim_start_matches('/')
                .split('/')
                .next()
                .unwrap_or("");
            for (name, link) in host_root_entries() {
                if ["dev", "proc", "tmp", top].contains(&name.as_str()) {
                    continue;
                }
                match link {
                    Some(target) => cmd.arg("--symlink").arg(target).arg(format!("/{name}")),
                    None => cmd
                        .arg("--ro-bind")
                        .arg(format!("/{name}"))
                        .arg(format!("/{name}")),
                };
            }
            cmd.args(["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]);
        }
        let mut child = cmd
            .arg("--bind")
            .arg(data_dir)
            .arg(mount)
            .args(["--chdir", mount])
            .args(["--", "/bin/sh", "-c", command])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| SandboxError::Spawn(e.to_string()))?;
        let mut out = child.stdout.take().expect("stdout is piped");
        let mut err = child.stderr.take().expect("stderr is piped");
        let work = async {
            let (o, e, status) = tokio::join!(capture(&mut out), capture(&mut err), child.wait());
            (o, e, status)
        };
        match tokio::time::timeout(timeout, work).await {
            Ok((stdout, stderr, status)) => {
                let code = status
                    .map_err(|e| SandboxError::Spawn(e.to_string()))?
                    .code()
                    .unwrap_or(-1);
                Ok(Ran {
                    stdout,
                    stderr,
                    outcome: Outcome::Exit(code),
                })
            }
            Err(_) => {
                let _ = child.kill().await;
                Ok(Ran {
                    stdout: String::new(),
                    stderr: String::new(),
                    outcome: Outcome::Timeout,
                })
            }
        }
    }
}

const MNT_DATA: &str = "/mnt/data";

/// The host's top-level directories and symbolic links (with their targets), by name: read
/// once per process.
fn host_root_entries() -> &'static [(String, Option<PathBuf>)] {
    static ENTRIES: std::sync::OnceLock<Vec<(String, Option<PathBuf>)>> =
        std::sync::OnceLock::new();
    ENTRIES.get_or_init(read_host_root)
}

fn read_host_root() -> Vec<(String, Option<PathBuf>)> {
    let Ok(dir) = std::fs::read_dir("/") else {
        return Vec::new();
    };
    let mut out: Vec<(String, Option<PathBuf>)> = dir
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            let kind = e.file_type().ok()?;
            if kind.is_symlink() {
                Some((name, Some(std::fs::read_link(e.path()).ok()?)))
            } else if kind.is_dir() {
                Some((name, None))
            } else {
                None
            }
        })
        .collect();
    out.sort();
    out
}

async fn capture(stream: &mut (impl AsyncReadExt + Unpin)) -> String {
    let mut kept = Vec::new();
    let mut buf = [0u8; 8192];
    while let Ok(n) = stream.read(&mut buf).await {
        if n == 0 {
            break;
        }
        let room = CAPTURE_LIMIT.saturating_sub(kept.len());
        kept.extend_from_slice(&buf[..n.min(room)]);
    }
    String::from_utf8_lossy(&kept).into_owned()
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sandbox() -> Option<Sandbox> {
        match Sandbox::locate_working() {
            Ok(s) => Some(s),
            Err(e) => {
                eprintln!("skipped: {e}");
                None
            }
        }
    }

    #[tokio::test]
    async fn writes_only_under_mnt_data() {
        let Some(sb) = sandbox() else { return };
        let dir = std::env::temp_dir().join(format!("vouch-sbx-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ran = sb
            .run(
                &dir,
                "pwd; echo hi > out.txt; touch /etc/vouch-probe 2>/dev/null || echo ro",
                Duration::from_secs(30),
            )
            .await
            .unwrap();
        assert_eq!(ran.outcome, Outcome::Exit(0), "{ran:?}");
        assert_eq!(ran.stdout, "/mnt/data\nro\n");
        assert_eq!(
            std::fs::read_to_string(dir.join("out.txt")).unwrap(),
            "hi\n"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[tokio::test]
    async fn a_command_past_its_timeout_is_killed() {
        let Some(sb) = sandbox() else { return };
        let dir = std::env::temp_dir().join(format!("vouch-sbx-t-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ran = sb
            .run(&dir, "sleep 30", Duration::from_millis(300))
            .await
            .unwrap();
        assert_eq!(ran.outcome, Outcome::Timeout);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
