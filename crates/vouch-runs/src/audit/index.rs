//! The stat index in front of the verdict cache: a re-audit of unchanged runs reads no artifact.
//!
//! For each thing found (a run directory, a bare bundle, an archive) the index keeps the results
//! it gave and the `lstat` stamps — device, inode, mode, link count, size, mtime and ctime to the
//! nanosecond — of every path its verification could read: for a run `run.json`, `bundle/` and
//! each of its entries, `source/` and each of its entries; for a bare bundle the directory and
//! its entries; for an archive the file. A path that was absent is recorded as absent. When every
//! recorded path stamps the same again, the recorded results are the answer; anything else is a
//! miss, and the run goes to the content-addressed cache ([`super::cache`]) and, failing that, is
//! verified.
//!
//! Why that is sound:
//! - Writing a file changes its ctime, which no user can set (`touch -d` sets the mtime and so
//!   changes the ctime too); adding, removing or renaming an entry changes its directory's mtime
//!   and ctime; replacing a file or directory changes the inode. A directory's stamp is recorded,
//!   so its entries need no listing on a hit.
//! - The stamps are taken before anything is read, so a change made while the run is verified
//!   shows as a changed stamp next time (the results recorded may already reflect it; that only
//!   costs a verification).
//! - **Racy stamps.** A file changed twice within one tick of the file system's clock (a
//!   coarse clock, or FAT's 2 s mtime) keeps its stamp. So an entry is written only when every
//!   stamped time is more than [`RACY_SECONDS`] older than the clock at stamping: a later change
//!   then always gives a newer time. Runs written just before an audit are verified (and cached
//!   by content) but indexed only by the next audit.
//! - The key covers the vouch version, the spec's bytes, the `--source` fallback (bytes and
//!   name), the path as shown and the absolute path. Entries are written in place; a corrupt,
//!   truncated, foreign or unreadable entry is a miss (one must decode to exactly its length).
//!
//! Entries are a small binary record ([`encode`]): a re-audit's cost is the stamps, and parsing
//! a results row as JSON cost more than all of them.

use super::discover::Found;
use super::results::{CheckOutcome, RunResult, RunVerdict};
use std::path::{Path, PathBuf};
use vouch_core::bundle::sha256_hex;

/// Stamped times must be at least this much older than the clock for an entry to be written.
pub const RACY_SECONDS: i64 = 3;

/// One path's `lstat`, the fields any change of content, membership or identity alters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    pub dev: u64,
    pub ino: u64,
    pub mode: u32,
    pub nlink: u64,
    pub size: u64,
    /// Nanoseconds since the epoch.
    pub mtime: i128,
    pub ctime: i128,
}

impl Stamp {
    /// The path's stamp, `Ok(None)` when it does not exist, `Err` when it cannot be told.
    fn of(path: &Path) -> Result<Option<Stamp>, ()> {
        #[cfg(unix)]
        return Stamp::at(rustix::fs::CWD, path);
        #[cfg(not(unix))]
        return Stamp::at(path);
    }

    /// The stamp of `rel` under the directory `dir` is open on (never through a link in its
    /// last component): the same `statx` as [`Stamp::of`] on the joined path, which walks the
    /// whole path again for every entry.
    #[cfg(unix)]
    fn at<Fd: rustix::fd::AsFd>(dir: Fd, rel: &Path) -> Result<Option<Stamp>, ()> {
        use rustix::fs::{statx, AtFlags, StatxFlags};
        let want = StatxFlags::TYPE
            | StatxFlags::MODE
            | StatxFlags::NLINK
            | StatxFlags::INO
            | StatxFlags::SIZE
            | StatxFlags::MTIME
            | StatxFlags::CTIME;
        match statx(dir, rel, AtFlags::SYMLINK_NOFOLLOW, want) {
            // A file system that does not report every field has nothing sound to compare.
            Ok(x) if StatxFlags::from_bits_retain(x.stx_mask).contains(want) => {
                let nanos = |t: rustix::fs::StatxTimestamp| {
                    i128::from(t.tv_sec) * 1_000_000_000 + i128::from(t.tv_nsec)
                };
                Ok(Some(Stamp {
                    dev: rustix::fs::makedev(x.stx_dev_major, x.stx_dev_minor),
                    ino: x.stx_ino,
                    mode: u32::from(x.stx_mode),
                    nlink: u64::from(x.stx_nlink),
                    size: x.stx_size,
                    mtime: nanos(x.stx_mtime),
                    ctime: nanos(x.stx_ctime),
                }))
            }
            Ok(_) => Err(()),
            Err(rustix::io::Errno::NOENT) => Ok(None),
            Err(_) => Err(()),
        }
    }

    /// Without inode numbers and ctimes there is nothing sound to compare: never indexed.
    #[cfg(not(unix))]
    fn at(_: &Path) -> Result<Option<Stamp>, ()> {
        Err(())
    }

    #[cfg(unix)]
    fn is_dir(&self) -> bool {
        self.mode & 0o170000 == 0o040000
    }

    #[cfg(not(unix))]
    fn is_dir(&self) -> bool {
        false
    }
}

/// The stamps of everything one found thing's verification may read, relative to its path
/// (`.` is the path itself), in a fixed order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stamps {
    /// Nanoseconds since the epoch when the stamps were taken.
    taken: i128,
    files: Vec<(String, Option<Stamp>)>,
}

impl Stamps {
    /// Whether a later change of any stamped path is certain to change its stamp.
    fn settled(&self) -> bool {
        let bound = self.taken - i128::from(RACY_SECONDS) * 1_000_000_000;
        self.files
            .iter()
            .filter_map(|(_, s)| s.as_ref())
            .all(|s| s.mtime < bound && s.ctime < bound)
    }

    /// Whether every recorded path stamps the same now.
    #[cfg(test)]
    fn still(&self, base: &Path) -> bool {
        let base = Base::open(base);
        self.files
            .iter()
            .all(|(rel, recorded)| base.stamp(rel) == Ok(*recorded))
    }
}

/// Where a found thing's recorded paths are stamped from: its directory, opened once (`O_PATH`,
/// never through a link), or, when it is not a directory that opens so, its path.
struct Base<'a> {
    path: &'a Path,
    #[cfg(unix)]
    dir: Option<rustix::fd::OwnedFd>,
}

impl<'a> Base<'a> {
    fn open(path: &'a Path) -> Base<'a> {
        #[cfg(unix)]
        {
            use rustix::fs::{openat, Mode, OFlags, CWD};
            let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
            let dir = openat(CWD, path, flags, Mode::empty()).ok();
            Base { path, dir }
        }
        #[cfg(not(unix))]
        Base { path }
    }

    /// The stamp of `rel` (`.` is the path itself) as [`Stamp::of`] of the joined path gives
    /// it: a directory opened without following a link is the directory the joined path goes
    /// through.
    fn stamp(&self, rel: &str) -> Result<Option<Stamp>, ()> {
        #[cfg(unix)]
        if let Some(dir) = &self.dir {
            return Stamp::at(dir, Path::new(rel));
        }
        Stamp::of(&join(self.path, rel))
    }
}

fn join(base: &Path, rel: &str) -> PathBuf {
    if rel == "." {
        base.to_path_buf()
    } else {
        base.join(rel)
    }
}

/// `f` of a file's bytes, read without asking its size first (`std::fs::read` does: one more
/// system call per entry), at most 16 MiB. An entry fits one 64 KiB read into a buffer each
/// thread keeps (zeroing a fresh one cost more than the read); a short read is taken as the
/// end, which is safe: a cut entry does not decode, and is a miss.
fn with_small<R>(path: &Path, f: impl FnOnce(&[u8]) -> Option<R>) -> Option<R> {
    use std::io::Read;
    const FIRST: usize = 64 << 10;
    thread_local! {
        static BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    let mut file = std::fs::File::open(path).ok()?;
    BUF.with(|buf| {
        let Ok(mut buf) = buf.try_borrow_mut() else {
            let mut all = Vec::new();
            file.take(16 << 20).read_to_end(&mut all).ok()?;
            return f(&all);
        };
        buf.resize(FIRST, 0);
        let n = file.read(&mut buf).ok()?;
        if n < FIRST {
            return f(&buf[..n]);
        }
        let mut all = buf.clone();
        file.take(16 << 20).read_to_end(&mut all).ok()?;
        f(&all)
    })
}

fn now_nanos() -> i128 {
    match std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i128,
        Err(_) => 0,
    }
}

/// Stamps of `rel` under `base` and, when it is a directory (never through a link), of each of
/// its entries.
fn stamp_dir(base: &Path, rel: &str, files: &mut Vec<(String, Option<Stamp>)>) -> Result<(), ()> {
    let path = join(base, rel);
    let stamp = Stamp::of(&path)?;
    files.push((rel.to_string(), stamp));
    if stamp.is_some_and(|s| s.is_dir()) {
        let mut names: Vec<String> = Vec::new();
        for e in std::fs::read_dir(&path).map_err(|_| ())? {
            let e = e.map_err(|_| ())?;
            // A name that is not UTF-8 cannot be recorded faithfully: no entry.
            names.push(e.file_name().into_string().map_err(|_| ())?);
        }
        names.sort();
        for n in names {
            let child = if rel == "." { n } else { format!("{rel}/{n}") };
            let s = Stamp::of(&join(base, &child))?;
            files.push((child, s));
        }
    }
    Ok(())
}

/// Everything `found`'s verification may read, stamped now; None when something cannot be
/// stamped (it is then never indexed).
pub fn stamps(found: &Found) -> Option<Stamps> {
    let taken = now_nanos();
    let mut files = Vec::new();
    let ok = match found {
        Found::Run(dir) => Stamp::of(&dir.join("run.json"))
            .map(|s| files.push(("run.json".into(), s)))
            .and_then(|()| stamp_dir(dir, "bundle", &mut files))
            .and_then(|()| stamp_dir(dir, "source", &mut files)),
        Found::Bundle(dir) => stamp_dir(dir, ".", &mut files),
        Found::Archive(path) => Stamp::of(path).map(|s| files.push((".".into(), s))),
    };
    ok.ok().map(|()| Stamps { taken, files })
}

#[derive(Debug, PartialEq)]
struct Entry {
    stamps: Stamps,
    results: Vec<RunResult>,
}

/// The first bytes of every entry; another version of the format is a miss.
const MAGIC: &[u8; 8] = b"vouchix2";

/// An entry as bytes: [`MAGIC`], the stamps, the results (little-endian integers, strings as a
/// u32 length and UTF-8 bytes, options as a 0/1 byte before the value).
fn encode(e: &Entry) -> Vec<u8> {
    let mut w = Writer(Vec::with_capacity(4096));
    w.0.extend_from_slice(MAGIC);
    w.i128(e.stamps.taken);
    w.u32(e.stamps.files.len() as u32);
    for (rel, stamp) in &e.stamps.files {
        w.str(rel);
        match stamp {
            None => w.0.push(0),
            Some(s) => {
                w.0.push(1);
                w.u64(s.dev);
                w.u64(s.ino);
                w.u32(s.mode);
                w.u64(s.nlink);
                w.u64(s.size);
                w.i128(s.mtime);
                w.i128(s.ctime);
            }
        }
    }
    w.u32(e.results.len() as u32);
    for r in &e.results {
        w.str(&r.run_id);
        w.str(&r.path);
        w.opt_str(&r.label);
        w.opt(r.trial, Writer::u32);
        w.opt_str(&r.model);
        w.opt_str(&r.source_file);
        w.opt_str(&r.source_sha256);
        w.0.push(verdict_byte(r.verdict));
        w.opt_str(&r.error);
        w.u32(r.checks.len() as u32);
        for c in &r.checks {
            w.str(&c.check);
            w.str(&c.status);
            w.u32(c.findings);
            w.opt_str(&c.message);
        }
        w.opt(r.first_pass.map(verdict_byte), |w, b| w.0.push(b));
        w.opt(r.repair_rounds, Writer::u32);
    }
    w.0
}

/// The entry `bytes` hold, or None for anything else (truncated, foreign, corrupt).
#[cfg(test)]
fn decode(bytes: &[u8]) -> Option<Entry> {
    let mut r = Reader(bytes.strip_prefix(MAGIC.as_slice())?);
    let taken = r.i128()?;
    let n = r.len()?;
    let mut files = Vec::with_capacity(n);
    for _ in 0..n {
        let (rel, stamp) = r.file()?;
        files.push((rel.to_string(), stamp));
    }
    let results = r.results()?;
    r.0.is_empty().then_some(Entry {
        stamps: Stamps { taken, files },
        results,
    })
}

/// The results of the entry `bytes` hold when every path it records stamps the same now under
/// `base`; None for a changed stamp and for anything that does not decode. The stamps are
/// compared as they are read, so a changed run costs no more of the entry than its first
/// changed path, and a whole entry decodes to exactly its length or not at all.
fn decode_if_still(bytes: &[u8], base: &Path) -> Option<Vec<RunResult>> {
    let mut r = Reader(bytes.strip_prefix(MAGIC.as_slice())?);
    let _taken = r.i128()?;
    let n = r.len()?;
    let base = Base::open(base);
    for _ in 0..n {
        let (rel, recorded) = r.file()?;
        if base.stamp(rel) != Ok(recorded) {
            return None;
        }
    }
    let results = r.results()?;
    r.0.is_empty().then_some(results)
}

fn verdict_byte(v: RunVerdict) -> u8 {
    match v {
        RunVerdict::Accept => 0,
        RunVerdict::Reject => 1,
        RunVerdict::Error => 2,
    }
}

fn byte_verdict(b: u8) -> Option<RunVerdict> {
    match b {
        0 => Some(RunVerdict::Accept),
        1 => Some(RunVerdict::Reject),
        2 => Some(RunVerdict::Error),
        _ => None,
    }
}

struct Writer(Vec<u8>);

impl Writer {
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn i128(&mut self, v: i128) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn str(&mut self, s: &str) {
        self.u32(s.len() as u32);
        self.0.extend_from_slice(s.as_bytes());
    }
    fn opt<T>(&mut self, v: Option<T>, put: impl FnOnce(&mut Writer, T)) {
        match v {
            None => self.0.push(0),
            Some(v) => {
                self.0.push(1);
                put(self, v);
            }
        }
    }
    fn opt_str(&mut self, v: &Option<String>) {
        self.opt(v.as_deref(), Writer::str);
    }
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (head, rest) = self.0.split_first_chunk::<N>()?;
        self.0 = rest;
        Some(*head)
    }
    fn byte(&mut self) -> Option<u8> {
        self.take::<1>().map(|[b]| b)
    }
    fn u32(&mut self) -> Option<u32> {
        self.take().map(u32::from_le_bytes)
    }
    fn u64(&mut self) -> Option<u64> {
        self.take().map(u64::from_le_bytes)
    }
    fn i128(&mut self) -> Option<i128> {
        self.take().map(i128::from_le_bytes)
    }
    /// A count, never more than the bytes left could hold (a corrupt count allocates nothing).
    fn len(&mut self) -> Option<usize> {
        let n = self.u32()? as usize;
        (n <= self.0.len()).then_some(n)
    }
    fn str_ref(&mut self) -> Option<&'a str> {
        let n = self.len()?;
        let (s, rest) = self.0.split_at(n);
        self.0 = rest;
        std::str::from_utf8(s).ok()
    }
    fn str(&mut self) -> Option<String> {
        self.str_ref().map(str::to_string)
    }
    /// One recorded path and its stamp (or its absence).
    fn file(&mut self) -> Option<(&'a str, Option<Stamp>)> {
        let rel = self.str_ref()?;
        let stamp = match self.byte()? {
            0 => None,
            1 => Some(Stamp {
                dev: self.u64()?,
                ino: self.u64()?,
                mode: self.u32()?,
                nlink: self.u64()?,
                size: self.u64()?,
                mtime: self.i128()?,
                ctime: self.i128()?,
            }),
            _ => return None,
        };
        Some((rel, stamp))
    }
    fn results(&mut self) -> Option<Vec<RunResult>> {
        let n = self.len()?;
        let mut results = Vec::with_capacity(n);
        for _ in 0..n {
            let run_id = self.str()?;
            let path = self.str()?;
            let label = self.opt(Reader::str)?;
            let trial = self.opt(Reader::u32)?;
            let model = self.opt(Reader::str)?;
            let source_file = self.opt(Reader::str)?;
            let source_sha256 = self.opt(Reader::str)?;
            let verdict = byte_verdict(self.byte()?)?;
            let error = self.opt(Reader::str)?;
            let m = self.len()?;
            let mut checks = Vec::with_capacity(m);
            for _ in 0..m {
                checks.push(CheckOutcome {
                    check: self.str()?,
                    status: self.str()?,
                    findings: self.u32()?,
                    message: self.opt(Reader::str)?,
                });
            }
            let first_pass = match self.opt(Reader::byte)? {
                None => None,
                Some(b) => Some(byte_verdict(b)?),
            };
            let repair_rounds = self.opt(Reader::u32)?;
            results.push(RunResult {
                run_id,
                path,
                label,
                trial,
                model,
                source_file,
                source_sha256,
                verdict,
                error,
                checks,
                first_pass,
                repair_rounds,
            });
        }
        Some(results)
    }
    fn opt<T>(&mut self, get: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        match self.byte()? {
            0 => Some(None),
            1 => get(self).map(Some),
            _ => None,
        }
    }
}

/// The index: entries under `<cache dir>/stat/<2 hex>/<key>`.
pub struct Index {
    dir: PathBuf,
    prefix: String,
}

impl Index {
    /// `prefix` must already cover the vouch version, the spec and the `--source` fallback.
    pub fn open(cache_dir: &Path, prefix: String) -> Index {
        Index {
            dir: cache_dir.join("stat"),
            prefix: format!("vouch stat index 1\n{prefix}"),
        }
    }

    fn key(&self, found: &Found) -> String {
        let shown = found.path().display().to_string();
        let absolute = std::path::absolute(found.path())
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        let kind = match found {
            Found::Run(_) => "run",
            Found::Bundle(_) => "bundle",
            Found::Archive(_) => "archive",
        };
        let text = format!("{}{kind}\n{shown}\n{absolute}\n", self.prefix);
        sha256_hex(text.as_bytes())
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(&key[..2]).join(key)
    }

    /// The recorded results of `found` when nothing it reads has changed since.
    pub fn get(&self, found: &Found) -> Option<Vec<RunResult>> {
        with_small(&self.path(&self.key(found)), |bytes| {
            decode_if_still(bytes, found.path())
        })
    }

    /// Records `results` for `found` under the stamps taken before it was read, unless a
    /// stamp is racy (see the module doc).
    pub fn put(&self, found: &Found, stamps: Stamps, results: &[RunResult]) {
        if !stamps.settled() {
            return;
        }
        let entry = Entry {
            stamps,
            results: results.to_vec(),
        };
        let bytes = encode(&entry);
        let path = self.path(&self.key(found));
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        // Written in place, with no temporary file and rename (each cost a file-system
        // metadata update, more than the entry): an entry read half-written, cut by a crash or
        // mixed from two writers does not decode to the exact length it must have, and is a
        // miss. A failed write leaves no usable entry either.
        if std::fs::write(&path, &bytes).is_err() {
            let _ = std::fs::remove_file(&path);
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// File times come from a coarse clock (one scheduler tick): changes made within one tick of
    /// the stamp may keep it, which is what the racy rule is for. The tests wait past a tick.
    fn tick() {
        std::thread::sleep(std::time::Duration::from_millis(30));
    }

    fn result(i: u32) -> RunResult {
        RunResult {
            run_id: format!("run-{i}"),
            path: format!("runs/ü{i}"),
            label: (i % 2 == 0).then(|| "base".to_string()),
            trial: Some(i),
            model: None,
            source_file: Some("s.csv".into()),
            source_sha256: Some("ab".repeat(32)),
            verdict: [RunVerdict::Accept, RunVerdict::Reject, RunVerdict::Error][i as usize % 3],
            error: (i % 3 == 2).then(|| "no source \"x\"\n".to_string()),
            checks: (0..i)
                .map(|k| CheckOutcome {
                    check: format!("memo.c{k}"),
                    status: "fail".into(),
                    findings: k,
                    message: (k % 2 == 1).then(|| format!("m{k}")),
                })
                .collect(),
            first_pass: [None, Some(RunVerdict::Reject)][i as usize % 2],
            repair_rounds: Some(i / 2),
        }
    }

    #[test]
    fn entries_round_trip_and_anything_else_is_a_miss() {
        let entry = Entry {
            stamps: Stamps {
                taken: -5,
                files: vec![
                    (".".into(), None),
                    (
                        "bundle/x".into(),
                        Some(Stamp {
                            dev: 1,
                            ino: u64::MAX,
                            mode: 0o100644,
                            nlink: 1,
                            size: 7,
                            mtime: i128::MIN,
                            ctime: i128::MAX,
                        }),
                    ),
                ],
            },
            results: (0..5).map(result).collect(),
        };
        let bytes = encode(&entry);
        assert_eq!(decode(&bytes), Some(entry));
        // Every truncation, an extra byte and another magic are misses, never a panic.
        for n in 0..bytes.len() {
            assert_eq!(decode(&bytes[..n]), None, "truncated to {n}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(decode(&longer), None);
        let mut other = bytes.clone();
        other[7] = b'9';
        assert_eq!(decode(&other), None);
        for at in (0..bytes.len()).step_by(7) {
            let mut flipped = bytes.clone();
            flipped[at] ^= 0xff;
            let _ = decode(&flipped);
        }
    }

    #[test]
    fn a_fresh_stamp_is_racy_and_an_old_one_is_not() {
        let tmp = tempfile::tempdir().unwrap();
        let f = tmp.path().join("a.zip");
        std::fs::write(&f, b"x").unwrap();
        let s = stamps(&Found::Archive(f.clone())).unwrap();
        assert!(!s.settled(), "just written: its ctime is now");
        let mut s = s;
        s.taken += i128::from(RACY_SECONDS + 1) * 1_000_000_000;
        assert!(s.settled());
    }

    #[test]
    fn any_change_to_a_run_changes_its_stamps() {
        let tmp = tempfile::tempdir().unwrap();
        let run = tmp.path().join("r");
        std::fs::create_dir_all(run.join("bundle")).unwrap();
        std::fs::create_dir_all(run.join("source")).unwrap();
        std::fs::write(run.join("run.json"), b"{}").unwrap();
        std::fs::write(run.join("bundle/calculated_metrics.csv"), b"a").unwrap();
        std::fs::write(run.join("source/s.csv"), b"s").unwrap();
        let found = Found::Run(run.clone());
        let before = stamps(&found).unwrap();
        assert!(before.still(&run));
        let names: Vec<&str> = before.files.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "run.json",
                "bundle",
                "bundle/calculated_metrics.csv",
                "source",
                "source/s.csv"
            ]
        );
        // Same size, same mtime set back: the ctime still tells.
        tick();
        let m = std::fs::metadata(run.join("bundle/calculated_metrics.csv")).unwrap();
        std::fs::write(run.join("bundle/calculated_metrics.csv"), b"b").unwrap();
        std::fs::File::options()
            .write(true)
            .open(run.join("bundle/calculated_metrics.csv"))
            .unwrap()
            .set_modified(m.modified().unwrap())
            .unwrap();
        assert!(!before.still(&run));
        // A new entry in bundle/ changes the directory's stamp.
        let before = stamps(&found).unwrap();
        tick();
        std::fs::write(run.join("bundle/notes.txt"), b"n").unwrap();
        assert!(!before.still(&run));
        // A source that appears where there was none.
        let before = stamps(&found).unwrap();
        tick();
        std::fs::remove_dir_all(run.join("source")).unwrap();
        assert!(!before.still(&run));
        let before = stamps(&found).unwrap();
        assert!(before.files.contains(&("source".to_string(), None)));
        std::fs::create_dir_all(run.join("source")).unwrap();
        assert!(!before.still(&run));
    }

    #[test]
    fn stamps_through_the_directory_are_the_stamps_of_the_joined_paths() {
        let tmp = tempfile::tempdir().unwrap();
        let b = tmp.path().join("b");
        std::fs::create_dir_all(b.join("sub")).unwrap();
        std::fs::write(b.join("investment_analysis.md"), b"m").unwrap();
        std::fs::write(b.join("sub/x"), b"x").unwrap();
        std::os::unix::fs::symlink("investment_analysis.md", b.join("link")).unwrap();
        std::os::unix::fs::symlink(&b, tmp.path().join("via")).unwrap();
        std::fs::write(tmp.path().join("a.zip"), b"z").unwrap();
        let rels = [
            ".",
            "investment_analysis.md",
            "sub",
            "sub/x",
            "link",
            "absent",
            "sub/absent",
        ];
        // A directory, a link to one (not opened: its path is used) and a file.
        for base in [b.clone(), tmp.path().join("via"), tmp.path().join("a.zip")] {
            let through = Base::open(&base);
            assert_eq!(through.dir.is_some(), base == b, "{}", base.display());
            for rel in rels {
                assert_eq!(
                    through.stamp(rel),
                    Stamp::of(&join(&base, rel)),
                    "{} {rel}",
                    base.display()
                );
            }
        }
        assert_eq!(Base::open(&b).stamp("absent"), Ok(None));
        assert!(Base::open(&tmp.path().join("a.zip")).stamp("x").is_err());
    }

    #[test]
    fn an_entry_answers_only_while_every_stamp_holds() {
        let tmp = tempfile::tempdir().unwrap();
        let b = tmp.path().join("b");
        std::fs::create_dir_all(&b).unwrap();
        std::fs::write(b.join("investment_analysis.md"), b"m").unwrap();
        let found = Found::Bundle(b.clone());
        let entry = Entry {
            stamps: stamps(&found).unwrap(),
            results: (0..3).map(result).collect(),
        };
        let bytes = encode(&entry);
        assert_eq!(decode_if_still(&bytes, &b), Some(entry.results.clone()));
        for n in 0..bytes.len() {
            assert_eq!(decode_if_still(&bytes[..n], &b), None, "truncated to {n}");
        }
        tick();
        std::fs::write(b.join("investment_analysis.md"), b"n").unwrap();
        assert_eq!(decode_if_still(&bytes, &b), None);
    }
}
