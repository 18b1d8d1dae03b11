//! Verify found runs in parallel. Each distinct source (bytes and file name) is read and
//! recomputed once; verdicts are cached by content (source, artifacts, spec, vouch version),
//! never by run id or path. Results stream to the caller; nothing holds all reports.

use super::archive::{self, ArchiveLimits};
use super::cache::Cache;
use super::discover::Found;
use super::index::{self, Index};
use super::results::{CheckOutcome, RunResult, RunVerdict};
use rayon::prelude::*;
use serde::Deserialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use vouch_core::bundle::{sha256_hex, Bundle};
use vouch_core::recompute::Truth;
use vouch_core::report::{Finding, Report, Status, Verdict};
use vouch_core::source::Statements;
use vouch_core::spec::Spec;
use vouch_core::verify::Rest;

/// The fields of `run.json` the audit reads (docs/runs.md); unknown fields are ignored.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct RunMeta {
    pub run_id: Option<String>,
    pub label: Option<String>,
    pub trial: Option<u32>,
    pub model: Option<String>,
    pub source: Option<RunSource>,
    /// The verification rounds of `vouch run --repair`: round 0 the first pass, each later one
    /// a repair. Absent from records written without `--repair` (no repair happened).
    pub rounds: Option<Vec<RunRound>>,
}

/// One verification round of a run record (its other fields are not read).
#[derive(Clone, Debug, Default, Deserialize)]
pub struct RunRound {
    /// vouch's verdict on the bundle of that round; null when not recorded.
    pub verdict: Option<RunVerdict>,
}

impl RunMeta {
    /// The repair rounds the record holds: one less than its rounds, 0 without any.
    pub fn repair_rounds(&self) -> u32 {
        let rounds = self.rounds.as_ref().map_or(0, Vec::len);
        u32::try_from(rounds.saturating_sub(1)).unwrap_or(u32::MAX)
    }

    /// The first pass's verdict when the run was repaired: round 0's, as recorded (the bundle
    /// it judged was replaced by the repairs, so it cannot be verified again). None when the
    /// run was not repaired: the final bundle is then the first pass's own.
    pub fn repaired_first_pass(&self) -> Option<Option<RunVerdict>> {
        match self.rounds.as_deref() {
            Some([first, _, ..]) => Some(first.verdict),
            _ => None,
        }
    }

    /// The first-pass verdict of a run the audit judged `verdict` (docs/decisions.md, "Repair
    /// rounds in the audit").
    pub fn first_pass(&self, verdict: RunVerdict) -> Option<RunVerdict> {
        self.repaired_first_pass().unwrap_or(Some(verdict))
    }
}

#[derive(Clone, Debug, Default, Deserialize)]
pub struct RunSource {
    pub file_name: String,
    pub sha256: Option<String>,
}

/// A source read and recomputed once.
struct Prepared {
    stmts: Statements,
    truth: Option<Truth>,
}

/// A source prepared once and shared by every run that uses it (or why it could not be read).
type SharedSource = Arc<Result<Prepared, String>>;

pub struct Auditor {
    spec: Arc<Spec>,
    fallback_source: Option<(String, Vec<u8>)>,
    limits: ArchiveLimits,
    cache: Option<Cache>,
    /// The stat index in front of `cache` (with it or not at all).
    index: Option<Index>,
    sources: Mutex<HashMap<(String, String), SharedSource>>,
    halves: Halves,
    counts: Counters,
}

/// Halves of verifications shared between the audit's runs (see [`vouch_core::verify::script_half`]):
/// the script family's findings by the script's bytes, the other families' by the source and
/// every other input. A run of the same prompt on the same source often repeats one of them.
/// Each table holds at most [`Halves::MAX`] entries (emptied when full), so memory stays flat
/// however many runs there are.
#[derive(Default)]
struct Halves {
    scripts: Mutex<HashMap<String, Arc<Vec<Finding>>>>,
    rests: Mutex<HashMap<String, Arc<Rest>>>,
    /// Parses of the scripts' top-level statements, shared where scripts differ only in part.
    parses: vouch_core::read::python::ParseCache,
}

impl Halves {
    const MAX: usize = 256;

    fn get<V>(table: &Mutex<HashMap<String, Arc<V>>>, key: &str) -> Option<Arc<V>> {
        table.lock().expect("halves lock").get(key).cloned()
    }

    fn put<V>(table: &Mutex<HashMap<String, Arc<V>>>, key: String, value: Arc<V>) {
        let mut t = table.lock().expect("halves lock");
        if t.len() >= Self::MAX {
            t.clear();
        }
        t.insert(key, value);
    }
}

/// Where an audit's results came from.
#[derive(Default)]
struct Counters {
    index: AtomicUsize,
    cache: AtomicUsize,
    verified: AtomicUsize,
}

/// How many results an audit took from the stat index, how many bundles from the content
/// cache, and how many it verified.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Results given back by the stat index (an archive's runs count one each).
    pub index: usize,
    /// Bundles whose verdict the content cache held.
    pub cache: usize,
    /// Bundles verified.
    pub verified: usize,
}

/// One verifiable unit: its bundle, run record and source.
struct Unit {
    path: String,
    meta: Option<RunMeta>,
    bundle: Bundle,
    source: Result<(String, Vec<u8>), String>,
}

impl Auditor {
    pub fn new(
        spec: Arc<Spec>,
        fallback_source: Option<&Path>,
        cache_dir: Option<PathBuf>,
    ) -> Result<Auditor, String> {
        let fallback_source = match fallback_source {
            Some(p) => {
                // The same refusal as `verify`'s: a FIFO or a device is never opened, and the
                // read is bounded.
                let bytes = vouch_core::source::read_user_file(p, spec.limits.max_artifact_bytes)
                    .map_err(|e| format!("cannot read source `{}`: {e}", p.display()))?;
                let name = p
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                // An unreadable --source is a usage error, not a per-run one.
                Statements::read_bytes(&p.display().to_string(), &name, &bytes, &spec)
                    .map_err(|e| e.to_string())?;
                Some((name, bytes))
            }
            None => None,
        };
        let cache = match cache_dir {
            Some(d) => Some(Cache::open(d, &spec)?),
            None => None,
        };
        // A result the index gives back may have come from the --source fallback: its bytes
        // and name are part of every index key (the content cache keys the source it used).
        let index = cache.as_ref().map(|c| {
            let fallback = match &fallback_source {
                Some((name, bytes)) => format!("fallback {} {name}\n", sha256_hex(bytes)),
                None => "fallback none\n".to_string(),
            };
            Index::open(c.dir(), format!("{}{fallback}", c.prefix()))
        });
        let limits = ArchiveLimits::new(spec.limits.max_artifact_bytes);
        Ok(Auditor {
            spec,
            fallback_source,
            limits,
            cache,
            index,
            sources: Mutex::new(HashMap::new()),
            halves: Halves::default(),
            counts: Counters::default(),
        })
    }

    /// Verify everything found, in parallel, calling `sink` with each result as it completes.
    pub fn run(&self, found: &[Found], sink: impl FnMut(RunResult) + Send) {
        // Results travel in small batches: one channel message (and wake-up) per result cost
        // more than a re-audit's whole answer from the stat index.
        let chunk = (found.len() / (rayon::current_num_threads().max(1) * 16)).clamp(1, 32);
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<RunResult>>(64);
        std::thread::scope(|s| {
            s.spawn(move || {
                found.par_chunks(chunk).for_each_with(tx, |tx, fs| {
                    let batch: Vec<RunResult> =
                        fs.iter().flat_map(|f| self.verify_found(f)).collect();
                    let _ = tx.send(batch);
                });
            });
            let mut sink = sink;
            for r in rx.into_iter().flatten() {
                sink(r);
            }
        });
    }

    /// The results of one thing found: from the stat index when nothing it reads has changed,
    /// else verified (through the content cache) and recorded in the index.
    fn verify_found(&self, f: &Found) -> Vec<RunResult> {
        let Some(ix) = &self.index else {
            return self.verify_found_now(f);
        };
        if let Some(results) = ix.get(f) {
            self.counts
                .index
                .fetch_add(results.len(), Ordering::Relaxed);
            return results;
        }
        // Stamped before anything is read (see `index`).
        let stamps = index::stamps(f);
        let results = self.verify_found_now(f);
        if let Some(stamps) = stamps {
            ix.put(f, stamps, &results);
        }
        results
    }

    /// Where the results so far came from.
    pub fn counts(&self) -> Counts {
        Counts {
            index: self.counts.index.load(Ordering::Relaxed),
            cache: self.counts.cache.load(Ordering::Relaxed),
            verified: self.counts.verified.load(Ordering::Relaxed),
        }
    }

    fn verify_found_now(&self, f: &Found) -> Vec<RunResult> {
        match f {
            Found::Run(dir) => vec![self.verify_unit(self.load_run_dir(dir))],
            Found::Bundle(dir) => vec![self.verify_unit(self.load_bundle_dir(dir))],
            Found::Archive(path) => match self.load_archive(path) {
                Ok(units) => units.into_iter().map(|u| self.verify_unit(u)).collect(),
                Err(e) => vec![error_result(
                    path.display().to_string(),
                    None,
                    format!("archive: {e}"),
                )],
            },
        }
    }

    fn fallback(&self, why: &str) -> Result<(String, Vec<u8>), String> {
        self.fallback_source.clone().ok_or_else(|| why.to_string())
    }

    fn load_bundle_dir(&self, dir: &Path) -> Unit {
        let path = dir.display().to_string();
        let bundle = Bundle::load_dir(dir, &self.spec).unwrap_or_default();
        Unit {
            path,
            meta: None,
            bundle,
            source: self.fallback("a bare bundle needs --source"),
        }
    }

    fn load_run_dir(&self, dir: &Path) -> Unit {
        let path = dir.display().to_string();
        let meta = match read_run_meta(dir) {
            Ok(m) => m,
            Err(e) => {
                return Unit {
                    path,
                    meta: None,
                    bundle: Bundle::default(),
                    source: Err(e),
                }
            }
        };
        let bundle = match real_dir(&dir.join("bundle")) {
            Ok(()) => Bundle::load_dir(&dir.join("bundle"), &self.spec).unwrap_or_default(),
            Err(e) => {
                return Unit {
                    path,
                    meta: Some(meta),
                    bundle: Bundle::default(),
                    source: Err(e),
                }
            }
        };
        let source = match run_source_copy(dir, &meta, self.spec.limits.max_artifact_bytes) {
            Ok(s) => Ok(s),
            Err(RunSourceError::Absent(why)) => self.fallback(&why),
            Err(RunSourceError::Bad(why)) => Err(why),
        };
        Unit {
            path,
            meta: Some(meta),
            bundle,
            source,
        }
    }

    fn load_archive(&self, path: &Path) -> Result<Vec<Unit>, String> {
        let bytes = read_limited(path, self.limits.max_total_bytes)?;
        let contents = archive::read(&path.to_string_lossy(), &bytes, self.limits)?;
        Ok(
            split_units(&path.display().to_string(), contents.files, &self.spec)
                .into_iter()
                .map(|(root, meta, files, source)| {
                    let bundle = Bundle::from_files(&root, files, &self.spec);
                    let source = match (source, meta.as_ref().and_then(|m| m.source.clone())) {
                        (Some(bytes), Some(src)) => check_sha(&src, bytes),
                        _ => self.fallback(
                            "archived bundle has no source copy and no --source was given",
                        ),
                    };
                    Unit {
                        path: root,
                        meta,
                        bundle,
                        source,
                    }
                })
                .collect(),
        )
    }

    fn prepare(&self, name: &str, bytes: &[u8]) -> SharedSource {
        let key = (sha256_hex(bytes), name.to_string());
        if let Some(p) = self.sources.lock().expect("source cache lock").get(&key) {
            return p.clone();
        }
        let prepared = Statements::read_bytes(name, name, bytes, &self.spec)
            .map(|stmts| {
                let truth = stmts
                    .valid_years()
                    .map(|y| Truth::compute(&self.spec, &stmts, &y));
                Prepared { stmts, truth }
            })
            .map_err(|e| e.to_string());
        let arc = Arc::new(prepared);
        self.sources
            .lock()
            .expect("source cache lock")
            .insert(key, arc.clone());
        arc
    }

    fn verify_unit(&self, unit: Unit) -> RunResult {
        let Unit {
            path,
            meta,
            bundle,
            source,
        } = unit;
        let (name, bytes) = match source {
            Ok(s) => s,
            Err(e) => return error_result(path, meta.as_ref(), e),
        };
        let prepared = self.prepare(&name, &bytes);
        let prepared = match prepared.as_ref() {
            Ok(p) => p,
            Err(e) => return error_result(path, meta.as_ref(), format!("source: {e}")),
        };
        let key = self
            .cache
            .as_ref()
            .map(|c| c.key(&prepared.stmts.sha256, &name, &bundle));
        let cached = match (&self.cache, &key) {
            (Some(c), Some(k)) => c.get(k),
            _ => None,
        };
        let (verdict, checks) = match cached {
            Some(v) => {
                self.counts.cache.fetch_add(1, Ordering::Relaxed);
                v
            }
            None => {
                self.counts.verified.fetch_add(1, Ordering::Relaxed);
                let report = self.verify_shared(&name, prepared, &bundle);
                let v = outcome(&report);
                if let (Some(c), Some(k)) = (&self.cache, &key) {
                    c.put(k, &v);
                }
                v
            }
        };
        let m = meta.unwrap_or_default();
        let (first_pass, repair_rounds) = (m.first_pass(verdict), Some(m.repair_rounds()));
        RunResult {
            run_id: m.run_id.clone().unwrap_or_else(|| path.clone()),
            path,
            label: m.label,
            trial: m.trial,
            model: m.model,
            source_file: Some(name),
            source_sha256: Some(prepared.stmts.sha256.clone()),
            verdict,
            error: None,
            checks,
            first_pass,
            repair_rounds,
        }
    }
}

impl Auditor {
    /// [`vouch_core::verify::verify_with`]'s report, from halves shared with earlier runs where
    /// their inputs were the same bytes, the missing halves computed side by side.
    fn verify_shared(&self, source_name: &str, prepared: &Prepared, bundle: &Bundle) -> Report {
        let spec = &self.spec;
        let script_key = bundle.get(&spec.artifacts.script).map(|a| a.sha256.clone());
        let rest_key = format!(
            "{}\n{source_name}\n{}",
            prepared.stmts.sha256,
            vouch_core::verify::rest_key(spec, bundle)
        );
        // A half computed here is left in its table for the runs after this one.
        let script_now = || {
            let half = Arc::new(vouch_core::verify::script_half(
                spec,
                bundle,
                Some(&self.halves.parses),
            ));
            if let Some(k) = &script_key {
                Halves::put(&self.halves.scripts, k.clone(), half.clone());
            }
            half
        };
        let rest_now = || {
            let half = Arc::new(vouch_core::verify::rest_half(
                spec,
                &prepared.stmts,
                prepared.truth.as_ref(),
                bundle,
            ));
            Halves::put(&self.halves.rests, rest_key.clone(), half.clone());
            half
        };
        let script = script_key
            .as_deref()
            .and_then(|k| Halves::get(&self.halves.scripts, k));
        let (script, rest) = match (script, Halves::get(&self.halves.rests, &rest_key)) {
            (Some(s), Some(r)) => (s, r),
            (Some(s), None) => (s, rest_now()),
            (None, Some(r)) => (script_now(), r),
            (None, None) => rayon::join(script_now, rest_now),
        };
        vouch_core::verify::join_halves(
            spec,
            &prepared.stmts,
            bundle,
            Rest::clone(&rest),
            Vec::clone(&script),
        )
    }
}

/// One run verified again in full: what a report that shows more than the run's outcome needs
/// (the audit's HTML page links its worst runs to their verify reports).
pub struct Reverified<'a> {
    pub spec: &'a Spec,
    pub stmts: &'a Statements,
    pub bundle: &'a Bundle,
    pub report: &'a Report,
}

impl Auditor {
    /// Loads and verifies again, in full and without the verdict cache, the runs of `found`
    /// whose paths (as [`RunResult::path`] gives them) are in `paths`, calling `each` with the
    /// path and the full report or why the run could not be verified. Paths not found again
    /// are not called back; an archive is read once for all of its runs asked for.
    pub fn reverify(
        &self,
        found: &[Found],
        paths: &[&str],
        mut each: impl FnMut(&str, Result<Reverified<'_>, String>),
    ) {
        let wanted: std::collections::HashSet<&str> = paths.iter().copied().collect();
        let mut done: std::collections::HashSet<String> = Default::default();
        for f in found {
            let units = match f {
                Found::Run(dir) if wanted.contains(dir.display().to_string().as_str()) => {
                    vec![self.load_run_dir(dir)]
                }
                Found::Bundle(dir) if wanted.contains(dir.display().to_string().as_str()) => {
                    vec![self.load_bundle_dir(dir)]
                }
                Found::Archive(path) => {
                    let prefix = format!("{}!", path.display());
                    if !paths.iter().any(|p| p.starts_with(&prefix)) {
                        continue;
                    }
                    match self.load_archive(path) {
                        Ok(units) => units
                            .into_iter()
                            .filter(|u| wanted.contains(u.path.as_str()))
                            .collect(),
                        Err(_) => continue,
                    }
                }
                _ => continue,
            };
            for unit in units {
                if !done.insert(unit.path.clone()) {
                    continue;
                }
                let path = unit.path.clone();
                let source = match unit.source {
                    Ok(s) => s,
                    Err(e) => {
                        each(&path, Err(e));
                        continue;
                    }
                };
                let prepared = self.prepare(&source.0, &source.1);
                match prepared.as_ref() {
                    Ok(p) => {
                        let report = vouch_core::verify::verify_with(
                            &self.spec,
                            &p.stmts,
                            p.truth.as_ref(),
                            &unit.bundle,
                        );
                        each(
                            &path,
                            Ok(Reverified {
                                spec: &self.spec,
                                stmts: &p.stmts,
                                bundle: &unit.bundle,
                                report: &report,
                            }),
                        );
                    }
                    Err(e) => each(&path, Err(format!("source: {e}"))),
                }
            }
        }
    }
}

/// Reads a run directory's `run.json` (at most 1 MiB); a record that is not the JSON object
/// docs/runs.md describes says where it is broken (line and column).
pub fn read_run_meta(dir: &Path) -> Result<RunMeta, String> {
    let bytes = read_limited(&dir.join("run.json"), 1 << 20)?;
    serde_json::from_slice::<RunMeta>(&bytes).map_err(|e| {
        format!(
            "`{}` is not a valid run record: {e} (docs/runs.md)",
            dir.join("run.json").display()
        )
    })
}

/// Why a run's own source copy cannot be used.
#[derive(Debug)]
pub enum RunSourceError {
    /// There is none: the record names no source, or the copy is not there (a `--source` may
    /// stand in).
    Absent(String),
    /// There is one, and it cannot be trusted: an unsafe name or a copy whose sha256 is not the
    /// recorded one.
    Bad(String),
}

/// The run's copy of its source, `source/<source.file_name>`, checked against the sha256 its
/// record holds: `(file name, bytes)`.
pub fn run_source_copy(
    dir: &Path,
    meta: &RunMeta,
    limit: u64,
) -> Result<(String, Vec<u8>), RunSourceError> {
    let Some(src) = meta.source.as_ref() else {
        return Err(RunSourceError::Absent(
            "run.json names no source and no --source was given".into(),
        ));
    };
    let name = plain_file_name(&src.file_name).map_err(RunSourceError::Bad)?;
    real_dir(&dir.join("source")).map_err(RunSourceError::Bad)?;
    match read_limited(&dir.join("source").join(name), limit) {
        Ok(bytes) => check_sha(src, bytes).map_err(RunSourceError::Bad),
        Err(_) => Err(RunSourceError::Absent(format!(
            "run has no source copy `source/{}` and no --source was given",
            src.file_name.escape_debug()
        ))),
    }
}

/// The run's source copy is the source only when its sha256 is the one `run.json` records
/// (docs/runs.md); a record with no hash cannot vouch for its copy.
fn check_sha(src: &RunSource, bytes: Vec<u8>) -> Result<(String, Vec<u8>), String> {
    let name = plain_file_name(&src.file_name)?;
    match &src.sha256 {
        None => Err(format!(
            "run.json records no source.sha256, so its source copy `{name}` cannot be checked; \
             the run cannot be verified"
        )),
        Some(expected) if !expected.eq_ignore_ascii_case(&sha256_hex(&bytes)) => Err(format!(
            "the run's source copy `{name}` does not match the sha256 recorded in run.json"
        )),
        _ => Ok((name.to_string(), bytes)),
    }
}

/// The compact outcome of a report: verdict and one entry per registered check.
pub fn outcome(report: &Report) -> (RunVerdict, Vec<CheckOutcome>) {
    let verdict = match report.verdict() {
        Verdict::Accept => RunVerdict::Accept,
        Verdict::Reject => RunVerdict::Reject,
    };
    let checks = report
        .check_summary()
        .into_iter()
        .map(|(def, status)| {
            let mut of_check = report.findings.iter().filter(|f| f.id == def.id);
            let findings = of_check.clone().count() as u32;
            let message = match status {
                Status::Pass => None,
                Status::Skipped => report.skip_reason(def),
                _ => of_check
                    .find(|f| f.status == status)
                    .map(|f| f.message.clone()),
            };
            CheckOutcome {
                check: def.id.to_string(),
                status: status.as_str().to_string(),
                findings,
                message,
            }
        })
        .collect();
    (verdict, checks)
}

fn error_result(path: String, meta: Option<&RunMeta>, error: String) -> RunResult {
    let m = meta.cloned().unwrap_or_default();
    RunResult {
        first_pass: m.first_pass(RunVerdict::Error),
        repair_rounds: Some(m.repair_rounds()),
        run_id: m.run_id.unwrap_or_else(|| path.clone()),
        path,
        label: m.label,
        trial: m.trial,
        model: m.model,
        source_file: m.source.map(|s| s.file_name),
        source_sha256: None,
        verdict: RunVerdict::Error,
        error: Some(error),
        checks: Vec::new(),
    }
}

/// Read a regular file (never through a link) of at most `limit` bytes.
/// Reads a regular file (never a link, a FIFO or a device) of at most `limit` bytes, bounded
/// while reading too (a `/proc` file says it is empty): [`vouch_core::bundle::read_regular`].
fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, String> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| format!("`{}`: {e}", path.display()))?;
    if !meta.is_file() {
        return Err(format!("`{}` is not a regular file", path.display()));
    }
    if meta.len() > limit {
        return Err(format!(
            "`{}` is {}, larger than the {} limit",
            path.display(),
            vouch_core::report::human_bytes(meta.len()),
            vouch_core::report::human_bytes(limit)
        ));
    }
    vouch_core::bundle::read_regular(path, limit).map_err(|e| format!("`{}`: {e}", path.display()))
}

/// A run's `source.file_name` names a file directly inside its `source/` directory: one plain
/// component (no `/`, `\`, `..`, drive or root), so it can never point outside the run.
fn plain_file_name(name: &str) -> Result<&str, String> {
    if vouch_core::bundle::is_plain_file_name(name) {
        return Ok(name);
    }
    Err(format!(
        "run.json's source.file_name `{}` is not a plain file name inside the run's source/ \
         directory; the run cannot be verified",
        name.escape_debug()
    ))
}

/// A directory of a run (`bundle/`, `source/`) must be one, not a link to one elsewhere.
fn real_dir(path: &Path) -> Result<(), String> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(format!(
            "`{}` is a symbolic link; vouch never follows links out of a run",
            path.display()
        )),
        _ => Ok(()),
    }
}

type SplitUnit = (
    String,
    Option<RunMeta>,
    Vec<(String, Vec<u8>)>,
    Option<Vec<u8>>,
);

/// Group an archive's files into run units (`<root>/run.json` + `<root>/bundle/*`) and bare
/// bundles (directories holding artifacts outside any run).
fn split_units(archive: &str, files: Vec<(String, Vec<u8>)>, spec: &Spec) -> Vec<SplitUnit> {
    let parent = |p: &str| {
        p.rsplit_once('/')
            .map_or(String::new(), |(d, _)| d.to_string())
    };
    let base = |p: &str| {
        p.rsplit_once('/')
            .map_or(p.to_string(), |(_, b)| b.to_string())
    };
    let run_roots: Vec<String> = files
        .iter()
        .filter(|(p, _)| base(p) == "run.json")
        .map(|(p, _)| parent(p))
        .collect();
    let under = |root: &str, p: &str| {
        if root.is_empty() {
            true
        } else {
            p.starts_with(&format!("{root}/"))
        }
    };
    let mut units = Vec::new();
    for root in &run_roots {
        let join = |rest: &str| {
            if root.is_empty() {
                rest.to_string()
            } else {
                format!("{root}/{rest}")
            }
        };
        let meta = files
            .iter()
            .find(|(p, _)| *p == join("run.json"))
            .and_then(|(_, b)| serde_json::from_slice::<RunMeta>(b).ok());
        let bundle_dir = join("bundle");
        let bundle_files: Vec<(String, Vec<u8>)> = files
            .iter()
            .filter(|(p, _)| parent(p) == bundle_dir)
            .map(|(p, b)| (base(p), b.clone()))
            .collect();
        let source = meta.as_ref().and_then(|m| m.source.as_ref()).and_then(|s| {
            let want = join(&format!("source/{}", s.file_name));
            files
                .iter()
                .find(|(p, _)| *p == want)
                .map(|(_, b)| b.clone())
        });
        units.push((format!("{archive}!{root}"), meta, bundle_files, source));
    }
    let mut bare: std::collections::BTreeMap<String, Vec<(String, Vec<u8>)>> = Default::default();
    for (p, b) in &files {
        let dir = parent(p);
        if run_roots.iter().any(|r| under(r, p)) {
            continue;
        }
        bare.entry(dir).or_default().push((base(p), b.clone()));
    }
    for (dir, fs) in bare {
        if fs
            .iter()
            .any(|(n, _)| spec.artifacts.all().contains(&n.as_str()))
        {
            units.push((format!("{archive}!{dir}"), None, fs, None));
        }
    }
    units
}
