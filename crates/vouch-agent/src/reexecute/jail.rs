//! One run of the bundle's script with python3 under bubblewrap, confined harder than the
//! emulator's [`crate::sandbox`] (which shows the agent the whole host read-only): here the
//! script sees only the system's programs and libraries (`/usr`, `/bin`, `/lib*`, read-only), a
//! private `/tmp`, fresh `/proc` and `/dev`, and one writable directory at `/mnt/data`. The root
//! is an empty read-only tmpfs, so the user's home, `/etc`, `/root` and the bundle itself are
//! absent. Every namespace is unshared: the network namespace is new and empty (no interface but
//! a down loopback). The environment is cleared and rebuilt from a fixed list.
//!
//! Resource limits are rlimits set on `bwrap` before it starts and inherited by everything inside:
//! CPU seconds, address space, file size, open files, no core dumps, and a process count. A
//! process count is not enforced for root, so when vouch runs as root the sandbox runs as
//! `nobody` (65534), and otherwise the count allows the user's current processes plus a margin.
//! A wall-clock timeout kills `bwrap`; `--die-with-parent` and the PID namespace take every
//! process of the sandbox with it. Output is captured up to a cap per stream.
//!
//! Limits of this jail: the writable directory is on the host's disk, so a script may write up to
//! the file-size limit per file until the wall clock ends it; `/tmp` is a size-capped tmpfs.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Bytes kept per output stream.
const CAPTURE_LIMIT: usize = 64 * 1024;
/// The uid and gid the sandbox runs as when vouch runs as root.
const NOBODY: u32 = 65534;
/// Directories the script may see, read-only (those that exist on this host).
const SYSTEM_DIRS: [&str; 7] = [
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
];
/// Files from `/etc` the dynamic loader and Python may need; nothing else of `/etc` is visible.
const SYSTEM_FILES: [&str; 3] = ["/etc/ld.so.cache", "/etc/localtime", "/etc/alternatives"];
/// Where python3 is looked for: only directories the sandbox shows (never a user's shim).
const PYTHON_DIRS: [&str; 3] = ["/usr/local/bin", "/usr/bin", "/bin"];

/// The limits of one run (docs/security.md).
#[derive(Clone, Debug)]
pub struct Limits {
    pub wall: Duration,
    pub cpu_seconds: u64,
    pub address_space_bytes: u64,
    pub file_bytes: u64,
    pub open_files: u64,
    /// Processes the sandbox may add (to the user's current count when not root).
    pub processes: u64,
    pub tmp_bytes: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            wall: Duration::from_secs(120),
            cpu_seconds: 60,
            address_space_bytes: 2 << 30,
            file_bytes: 64 << 20,
            open_files: 256,
            processes: 64,
            tmp_bytes: 64 << 20,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum JailError {
    #[error("{0}")]
    Unavailable(String),
    #[error("cannot start bubblewrap: {0}")]
    Spawn(String),
}

/// How the script's run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    Exit(i32),
    /// Killed by a signal (a CPU, memory or file-size limit shows up here).
    Signal(i32),
    /// Killed at the wall-clock limit.
    Timeout,
}

#[derive(Clone, Debug)]
pub struct Ran {
    pub ending: Ending,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

/// The programs the jail needs, located on this host.
#[derive(Clone, Debug)]
pub struct Jail {
    bwrap: PathBuf,
    python: String,
}

impl Jail {
    /// Find `bwrap` and a system python3; never falls back to an unsandboxed run.
    pub fn locate() -> Result<Jail, JailError> {
        let sandbox = crate::sandbox::Sandbox::locate_working()
            .map_err(|e| JailError::Unavailable(e.to_string()))?;
        let python = PYTHON_DIRS
            .iter()
            .map(|d| Path::new(d).join("python3"))
            .find(|p| p.exists())
            .ok_or_else(|| {
                JailError::Unavailable(format!(
                    "python3 is not installed in {} (the only places the sandbox can see); \
                     --reexecute never runs the script outside the sandbox",
                    PYTHON_DIRS.join(", ")
                ))
            })?;
        Ok(Jail {
            bwrap: sandbox.program().to_path_buf(),
            python: python.to_string_lossy().into_owned(),
        })
    }

    /// Run `python3 /mnt/data/<script>` with `data_dir` as `/mnt/data` (also the working
    /// directory). `data_dir` must already hold the script and the source copy.
    pub fn run(&self, data_dir: &Path, script: &str, limits: &Limits) -> Result<Ran, JailError> {
        let argv = [
            self.python.clone(),
            "-B".to_string(),
            format!("/mnt/data/{script}"),
        ];
        self.run_argv(data_dir, &argv, limits)
    }

    /// Run one shell command line (`/bin/sh -c COMMAND`) in the same confinement, with
    /// `data_dir` as `/mnt/data`: what a local-environment agent's shell call asks for.
    pub fn shell(&self, data_dir: &Path, command: &str, limits: &Limits) -> Result<Ran, JailError> {
        let argv = ["/bin/sh".to_string(), "-c".to_string(), command.to_string()];
        self.run_argv(data_dir, &argv, limits)
    }

    fn run_argv(
        &self,
        data_dir: &Path,
        argv: &[String],
        limits: &Limits,
    ) -> Result<Ran, JailError> {
        let as_nobody = unsafe { libc::geteuid() } == 0;
        if as_nobody {
            hand_to_nobody(data_dir).map_err(|e| JailError::Spawn(e.to_string()))?;
        }
        let processes = if as_nobody {
            processes_of(NOBODY) + limits.processes
        } else {
            processes_of(unsafe { libc::getuid() }) + limits.processes
        };
        let mut cmd = Command::new(&self.bwrap);
        cmd.args(["--unshare-all", "--die-with-parent", "--new-session"]);
        for dir in SYSTEM_DIRS {
            let p = Path::new(dir);
            match std::fs::symlink_metadata(p) {
                Ok(m) if m.file_type().is_symlink() => {
                    if let Ok(target) = std::fs::read_link(p) {
                        cmd.arg("--symlink").arg(target).arg(dir);
                    }
                }
                Ok(m) if m.is_dir() => {
                    cmd.args(["--ro-bind", dir, dir]);
                }
                _ => {}
            }
        }
        for file in SYSTEM_FILES {
            cmd.args(["--ro-bind-try", file, file]);
        }
        // `--dev` is an unbounded tmpfs: its `/dev/shm` gets a bounded tmpfs of its own and
        // the rest of `/dev` is read-only (device nodes still work).
        cmd.args(["--proc", "/proc", "--dev", "/dev"]);
        cmd.arg("--size")
            .arg(limits.tmp_bytes.min(64 << 20).to_string())
            .args(["--tmpfs", "/dev/shm", "--remount-ro", "/dev"]);
        cmd.arg("--size")
            .arg(limits.tmp_bytes.to_string())
            .args(["--tmpfs", "/tmp"]);
        cmd.arg("--bind").arg(data_dir).arg("/mnt/data");
        cmd.args(["--chdir", "/mnt/data", "--remount-ro", "/"]);
        cmd.arg("--").args(argv);
        cmd.env_clear();
        for (k, v) in [
            ("PATH", "/usr/local/bin:/usr/bin:/bin"),
            ("HOME", "/tmp"),
            ("LANG", "C.UTF-8"),
            ("LC_ALL", "C.UTF-8"),
            ("TZ", "UTC"),
            ("PYTHONHASHSEED", "0"),
            ("PYTHONDONTWRITEBYTECODE", "1"),
            ("PYTHONIOENCODING", "utf-8"),
        ] {
            cmd.env(k, v);
        }
        cmd.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let rlimits = [
            (libc::RLIMIT_CPU, limits.cpu_seconds),
            (libc::RLIMIT_AS, limits.address_space_bytes),
            (libc::RLIMIT_FSIZE, limits.file_bytes),
            (libc::RLIMIT_NOFILE, limits.open_files),
            (libc::RLIMIT_CORE, 0),
            (libc::RLIMIT_NPROC, processes),
        ];
        // SAFETY: between fork and exec only async-signal-safe calls (setrlimit, setgroups,
        // setgid, setuid) on values computed before the fork.
        unsafe {
            use std::os::unix::process::CommandExt;
            cmd.pre_exec(move || {
                for (resource, value) in rlimits {
                    let lim = libc::rlimit {
                        rlim_cur: value as libc::rlim_t,
                        rlim_max: value as libc::rlim_t,
                    };
                    if libc::setrlimit(resource, &lim) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                if as_nobody
                    && (libc::setgroups(0, std::ptr::null()) != 0
                        || libc::setgid(NOBODY) != 0
                        || libc::setuid(NOBODY) != 0)
                {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let start = Instant::now();
        let mut child = cmd.spawn().map_err(|e| JailError::Spawn(e.to_string()))?;
        let out = capture(child.stdout.take());
        let err = capture(child.stderr.take());
        let ending = loop {
            match child.try_wait() {
                Ok(Some(status)) => {
                    use std::os::unix::process::ExitStatusExt;
                    break match (status.code(), status.signal()) {
                        (Some(c), _) => Ending::Exit(c),
                        (None, Some(s)) => Ending::Signal(s),
                        (None, None) => Ending::Exit(-1),
                    };
                }
                Ok(None) if start.elapsed() >= limits.wall => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break Ending::Timeout;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(20)),
                Err(e) => return Err(JailError::Spawn(e.to_string())),
            }
        };
        let elapsed = start.elapsed();
        Ok(Ran {
            ending,
            stdout: out.join().unwrap_or_default(),
            stderr: err.join().unwrap_or_default(),
            elapsed,
        })
    }
}

/// Read a stream to its end on a thread, keeping the first [`CAPTURE_LIMIT`] bytes.
fn capture(stream: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let Some(mut stream) = stream else {
            return String::new();
        };
        let mut kept = Vec::new();
        let mut buf = [0u8; 8192];
        while let Ok(n) = stream.read(&mut buf) {
            if n == 0 {
                break;
            }
            let room = CAPTURE_LIMIT.saturating_sub(kept.len());
            kept.extend_from_slice(&buf[..n.min(room)]);
        }
        String::from_utf8_lossy(&kept).into_owned()
    })
}

/// Give the data directory and its files to `nobody`, who runs the sandbox when vouch is root.
fn hand_to_nobody(dir: &Path) -> std::io::Result<()> {
    std::os::unix::fs::chown(dir, Some(NOBODY), Some(NOBODY))?;
    for entry in std::fs::read_dir(dir)? {
        std::os::unix::fs::chown(entry?.path(), Some(NOBODY), Some(NOBODY))?;
    }
    Ok(())
}

/// Processes (threads count for RLIMIT_NPROC) that `uid` owns now, from `/proc`.
fn processes_of(uid: u32) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter(|e| e.metadata().is_ok_and(|m| m.uid() == uid))
        .map(|e| std::fs::read_dir(e.path().join("task")).map_or(1, |t| t.count() as u64))
        .sum()
}
