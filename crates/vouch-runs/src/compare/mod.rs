//! `vouch compare`: judge whether a candidate set of runs (e.g. a new prompt) is worse than a
//! baseline set, with statistics that survive run-to-run noise.
//!
//! Per side: the accept rate and every check's failure rate with Wilson 95 % intervals, and
//! pass^k when trials repeat the same input. Between sides, for the accept rate (the primary
//! endpoint) and every check: the difference and a two-sided p-value — McNemar on the
//! discordant pairs when the runs are paired, else Fisher's exact test — then Holm–Bonferroni
//! across all of them. The candidate is *worse* when the accept rate or any check is
//! significantly worse after correction.
//!
//! Conventions (also in docs/compare.md):
//! - A run with verdict `error` counts as not accepted. It has no check outcomes, so it is left
//!   out of the checks' denominators; when either side has errors, `run.error` (the results
//!   table's row for such runs) becomes an endpoint of its own over all runs.
//! - A check *fails* in a run when its worst status is `fail`; `warn` and `info` do not reject a
//!   bundle and count as not failing.
//! - Runs are *paired* when every run on both sides carries a source sha256 and a trial index
//!   and these (source, trial) keys match one to one across the sides.
//! - The Holm family is the accept rate plus every check, minus endpoints whose test cannot give
//!   p < 1 whatever the outcome given its margins (no failures on either side, everything
//!   failing on both sides, or no discordant pair): they could never be rejected, and counting
//!   them would only cost power. The accept rate is thus corrected like the checks; it is
//!   reported first and separately.
//! - Significant means adjusted p ≤ α.
//! - Runs repaired by `vouch run --repair` are judged on their final verdict (the audit's). The
//!   first-pass accept rates are reported beside it, with their difference, for information: not
//!   tested, not in the family, not part of the decision.

pub mod html;
pub mod read;
pub mod render;
pub mod stats;

use crate::audit::repair::RepairTally;
use crate::audit::{RunResult, RunVerdict};
use stats::{Interval, LnFactorial, Table2x2};
use std::collections::HashMap;

pub use read::{read_results, ReadError};

/// Exact tests are used up to this many observations (table total, or discordant pairs); above
/// it the asymptotic test is used, which is then accurate to well below any α anyone uses, and
/// keeps time and the ln(n!) table bounded. At the limit one exact test takes about a
/// millisecond (see docs/compare.md).
pub const EXACT_LIMIT: u64 = 100_000;

/// pass^k is reported for k = 1 up to the smallest number of trials of an input, and at most
/// this: beyond it the values are a long tail of near-zero numbers nobody reads.
pub const MAX_PASS_K: u64 = 10;

/// The endpoint name of the accept rate.
pub const ACCEPT: &str = "accept";
/// The endpoint (and results-table check) of runs that could not be verified.
pub const RUN_ERROR: &str = "run.error";

/// Everything `vouch compare` concludes.
#[derive(Clone, Debug)]
pub struct Comparison {
    pub alpha: f64,
    pub design: Design,
    pub baseline: Side,
    pub candidate: Side,
    /// The primary endpoint: the accept rate.
    pub accept: Difference,
    /// One per check (and `run.error` when there are errors), sorted by adjusted p, then id.
    pub checks: Vec<Difference>,
    /// How many endpoints the Holm correction ran over.
    pub family_size: usize,
    /// The smallest drop in the accept rate (a fraction) the comparison must be able to see.
    pub min_effect: f64,
}

/// How the two sides relate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Design {
    /// Each baseline run has exactly one candidate run with the same source and trial.
    Paired { pairs: u64 },
    /// Independent samples, with why they are not paired.
    Independent { reason: String },
}

/// One side's rates.
#[derive(Clone, Debug)]
pub struct Side {
    pub runs: u64,
    pub accepted: u64,
    pub rejected: u64,
    pub errors: u64,
    /// accepted / runs.
    pub accept: Proportion,
    /// Failure rate of every check seen on either side (and `run.error` when there are errors),
    /// sorted by id.
    pub checks: Vec<(String, Proportion)>,
    /// Distinct inputs (source sha256) the pass^k figures are over; runs without a source
    /// sha256 are not part of it.
    pub inputs: u64,
    /// pass^k for k = 1..; empty when some input has a single trial.
    pub pass_k: Vec<(u64, f64)>,
    /// First pass and after repair (`vouch run --repair`).
    pub repair: RepairTally,
}

/// `count` out of `n`, with its Wilson 95 % interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Proportion {
    pub count: u64,
    pub n: u64,
    pub ci: Interval,
}

impl Proportion {
    pub fn new(count: u64, n: u64) -> Proportion {
        Proportion {
            count,
            n,
            ci: stats::wilson95(count, n),
        }
    }

    /// The estimate; None without observations.
    pub fn rate(&self) -> Option<f64> {
        (self.n > 0).then(|| self.count as f64 / self.n as f64)
    }
}

/// Which test produced a p-value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Test {
    FisherExact,
    TwoProportionZ,
    McNemarExact,
    McNemarChiSquare,
}

impl Test {
    pub fn as_str(self) -> &'static str {
        match self {
            Test::FisherExact => "fisher_exact",
            Test::TwoProportionZ => "two_proportion_z",
            Test::McNemarExact => "mcnemar_exact",
            Test::McNemarChiSquare => "mcnemar_chi_square",
        }
    }
}

/// The verdict on one endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Significantly worse after correction.
    Worse,
    /// Significantly better after correction.
    Better,
    /// No significant difference.
    Same,
}

impl Change {
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Worse => "worse",
            Change::Better => "better",
            Change::Same => "same",
        }
    }
}

/// One endpoint compared across the sides.
#[derive(Clone, Debug)]
pub struct Difference {
    /// `accept`, a check id, or `run.error`.
    pub endpoint: String,
    /// Accepted runs for `accept`, failures for a check.
    pub baseline: Proportion,
    pub candidate: Proportion,
    pub test: Test,
    /// Discordant pairs (baseline only, candidate only) under McNemar.
    pub discordant: Option<(u64, u64)>,
    pub p: f64,
    pub p_adjusted: f64,
    /// Whether the endpoint is in the Holm family (its test can give p < 1).
    pub in_family: bool,
    pub change: Change,
}

impl Difference {
    /// candidate rate − baseline rate; None when a side has no observations.
    pub fn difference(&self) -> Option<f64> {
        Some(self.candidate.rate()? - self.baseline.rate()?)
    }

    /// Whether a higher rate is better (the accept rate) or worse (failures).
    pub fn higher_is_better(&self) -> bool {
        self.endpoint == ACCEPT
    }
}

impl Comparison {
    /// Every endpoint that is significantly worse, the accept rate first.
    pub fn regressions(&self) -> Vec<&Difference> {
        std::iter::once(&self.accept)
            .chain(&self.checks)
            .filter(|d| d.change == Change::Worse)
            .collect()
    }

    pub fn improvements(&self) -> Vec<&Difference> {
        std::iter::once(&self.accept)
            .chain(&self.checks)
            .filter(|d| d.change == Change::Better)
            .collect()
    }

    pub fn is_worse(&self) -> bool {
        !self.regressions().is_empty()
    }

    /// Whether some run on either side went through a repair round: only then do the reports
    /// show first-pass and after-repair rates.
    pub fn repaired(&self) -> bool {
        self.baseline.repair.repaired + self.candidate.repair.repaired > 0
    }

    /// The first-pass accept rates of the sides, (baseline, candidate): informational, never
    /// tested.
    pub fn first_pass(&self) -> (Proportion, Proportion) {
        (
            self.baseline.repair.first_pass(),
            self.candidate.repair.first_pass(),
        )
    }

    /// Worse; else inconclusive when the data cannot rule out a drop of `min_effect` in the
    /// accept rate (the upper end of Newcombe's hybrid score interval for baseline − candidate,
    /// from Wilson intervals at `alpha`, reaches it); else not worse.
    pub fn decision(&self) -> Decision {
        if self.is_worse() {
            return Decision::Worse;
        }
        let (b, c) = (&self.accept.baseline, &self.accept.candidate);
        let (Some(pb), Some(pc)) = (b.rate(), c.rate()) else {
            return Decision::Inconclusive {
                needed: runs_needed(1.0, self.min_effect, self.alpha).unwrap_or(1),
            };
        };
        if pb < self.min_effect {
            return Decision::NotWorse; // no such drop is possible
        }
        let z = z_two_sided(self.alpha);
        let (wb, wc) = (
            stats::wilson(b.count, b.n, z),
            stats::wilson(c.count, c.n, z),
        );
        let upper = (pb - pc) + ((wb.high - pb).powi(2) + (pc - wc.low).powi(2)).sqrt();
        if upper >= self.min_effect {
            Decision::Inconclusive {
                needed: runs_needed(pb, self.min_effect, self.alpha).unwrap_or(1),
            }
        } else {
            Decision::NotWorse
        }
    }

    /// 1 when the candidate is significantly worse, 3 when the runs are too few to tell, else 0.
    pub fn exit_code(&self) -> i32 {
        match self.decision() {
            Decision::Worse => 1,
            Decision::Inconclusive { .. } => 3,
            Decision::NotWorse => 0,
        }
    }
}

/// One side reduced to flat arrays: per run whether it was accepted, errored, and per check
/// (by index into the shared id list) whether it was reported and failed.
struct Encoded {
    accepted: Vec<bool>,
    errored: Vec<bool>,
    /// Per run, the checks it reported, sorted by check index, with 1 (not failing) or 2
    /// (failed): sparse, so memory follows what the runs hold, not runs × distinct checks (a
    /// dense grid of 300,000 runs that each name other checks was 90 GB).
    status: Vec<Vec<(u32, u8)>>,
}

const ABSENT: u8 = 0;
const NOT_FAILED: u8 = 1;
const FAILED: u8 = 2;

/// Interns check ids across both sides so that runs become rows of small integers.
#[derive(Default)]
struct CheckIds<'a> {
    index: HashMap<&'a str, usize>,
    names: Vec<&'a str>,
}

impl<'a> CheckIds<'a> {
    fn collect(sides: [&'a [RunResult]; 2]) -> CheckIds<'a> {
        let mut ids = CheckIds::default();
        for run in sides.iter().flat_map(|s| s.iter()) {
            for (j, c) in run.checks.iter().enumerate() {
                // A check that did not run is not observed in this run.
                if c.status == "skipped" {
                    continue;
                }
                // Runs list their checks in the same order almost always: skip the hash then.
                if ids.names.get(j).is_some_and(|&name| name == c.check) {
                    continue;
                }
                if !ids.index.contains_key(c.check.as_str()) {
                    ids.index.insert(&c.check, ids.names.len());
                    ids.names.push(&c.check);
                }
            }
        }
        ids
    }
}

fn encode(runs: &[RunResult], ids: &CheckIds) -> Encoded {
    let mut status = Vec::with_capacity(runs.len());
    for run in runs {
        let mut row: Vec<(u32, u8)> = Vec::new();
        if run.verdict != RunVerdict::Error {
            row.reserve(run.checks.len());
            for (j, c) in run.checks.iter().enumerate() {
                // A check that did not run is not observed in this run.
                if c.status == "skipped" {
                    continue;
                }
                // Runs list their checks in the same order almost always; try that before
                // hashing.
                let i = match ids.names.get(j) {
                    Some(&name) if name == c.check => j,
                    _ => ids.index[c.check.as_str()],
                };
                let s = if c.status == "fail" {
                    FAILED
                } else {
                    NOT_FAILED
                };
                row.push((i as u32, s));
            }
            // A check listed twice counts at its worst.
            row.sort_unstable();
            row.dedup_by(|later, kept| {
                later.0 == kept.0 && {
                    kept.1 = kept.1.max(later.1);
                    true
                }
            });
        }
        status.push(row);
    }
    Encoded {
        accepted: runs
            .iter()
            .map(|r| r.verdict == RunVerdict::Accept)
            .collect(),
        errored: runs
            .iter()
            .map(|r| r.verdict == RunVerdict::Error)
            .collect(),
        status,
    }
}

impl Encoded {
    fn runs(&self) -> usize {
        self.accepted.len()
    }

    fn cell(&self, run: usize, check: usize) -> u8 {
        let row = &self.status[run];
        row.binary_search_by_key(&(check as u32), |e| e.0)
            .map_or(ABSENT, |k| row[k].1)
    }
}

/// What an endpoint counts in a run.
#[derive(Clone, Copy)]
enum Endpoint {
    /// The run was accepted.
    Accept,
    /// The check (by index) failed; not observed when the run did not report it.
    Check(usize),
    /// The run could not be verified.
    RunError,
}

impl Encoded {
    /// Some(true) when the endpoint's event happened in run `r`, Some(false) when not, None when
    /// it was not observed.
    fn outcome(&self, r: usize, endpoint: Endpoint) -> Option<bool> {
        match endpoint {
            Endpoint::Accept => Some(self.accepted[r]),
            Endpoint::RunError => Some(self.errored[r]),
            Endpoint::Check(i) => match self.cell(r, i) {
                ABSENT => None,
                s => Some(s == FAILED),
            },
        }
    }

    /// Every endpoint's proportion over this side, in one pass over the runs.
    fn proportions(&self, endpoints: &[(String, Endpoint)], width: usize) -> Vec<Proportion> {
        let mut failed = vec![0u64; width];
        let mut reported = vec![0u64; width];
        for row in &self.status {
            for &(i, s) in row {
                failed[i as usize] += u64::from(s == FAILED);
                reported[i as usize] += 1;
            }
        }
        let runs = self.runs() as u64;
        let count = |v: &[bool]| v.iter().filter(|&&b| b).count() as u64;
        endpoints
            .iter()
            .map(|(_, e)| match *e {
                Endpoint::Accept => Proportion::new(count(&self.accepted), runs),
                Endpoint::RunError => Proportion::new(count(&self.errored), runs),
                Endpoint::Check(i) => Proportion::new(failed[i], reported[i]),
            })
            .collect()
    }
}

/// Compare `candidate` against `baseline` at family-wise level `alpha`.
pub fn compare(baseline: &[RunResult], candidate: &[RunResult], alpha: f64) -> Comparison {
    let ids = CheckIds::collect([baseline, candidate]);
    let width = ids.names.len();
    let sides = [encode(baseline, &ids), encode(candidate, &ids)];
    let inputs = input_ids([baseline, candidate]);
    let (design, pairs) = pairing([baseline, candidate], &inputs);
    let any_errors = sides.iter().any(|s| s.errored.contains(&true));

    let mut order: Vec<usize> = (0..width).collect();
    order.sort_by_key(|&i| ids.names[i]);
    let mut endpoints: Vec<(String, Endpoint)> = vec![(ACCEPT.to_string(), Endpoint::Accept)];
    endpoints.extend(
        order
            .iter()
            .map(|&i| (ids.names[i].to_string(), Endpoint::Check(i))),
    );
    if any_errors && !ids.index.contains_key(RUN_ERROR) {
        endpoints.push((RUN_ERROR.to_string(), Endpoint::RunError));
    }

    let ln_fact = LnFactorial::new(
        (baseline.len() + candidate.len())
            .min(EXACT_LIMIT as usize)
            .max(1) as u64,
    );
    let proportions = [
        sides[0].proportions(&endpoints, width),
        sides[1].proportions(&endpoints, width),
    ];
    let mut differences: Vec<Difference> = endpoints
        .iter()
        .enumerate()
        .map(|(k, (name, endpoint))| {
            let observed = [proportions[0][k], proportions[1][k]];
            test_endpoint(name, *endpoint, observed, &sides, &pairs, &ln_fact)
        })
        .collect();

    let family: Vec<usize> = (0..differences.len())
        .filter(|&i| differences[i].in_family)
        .collect();
    let raw: Vec<f64> = family.iter().map(|&i| differences[i].p).collect();
    for (&i, adjusted) in family.iter().zip(stats::holm(&raw)) {
        let d = &mut differences[i];
        d.p_adjusted = adjusted;
        d.change = change(d, alpha);
    }

    let side_of = |e: &Encoded, runs: &[RunResult], d: &[Difference], pick: bool| -> Side {
        let side_inputs = &inputs[usize::from(pick)];
        let count = |v: RunVerdict| runs.iter().filter(|r| r.verdict == v).count() as u64;
        let (input_count, pass_k) = pass_k(runs, side_inputs);
        let mut checks: Vec<(String, Proportion)> = d[1..]
            .iter()
            .map(|d| {
                let p = if pick { d.candidate } else { d.baseline };
                (d.endpoint.clone(), p)
            })
            .collect();
        checks.sort_by(|a, b| a.0.cmp(&b.0));
        Side {
            runs: e.runs() as u64,
            accepted: count(RunVerdict::Accept),
            rejected: count(RunVerdict::Reject),
            errors: count(RunVerdict::Error),
            accept: if pick { d[0].candidate } else { d[0].baseline },
            checks,
            inputs: input_count,
            pass_k,
            repair: RepairTally::of(runs),
        }
    };
    let baseline_side = side_of(&sides[0], baseline, &differences, false);
    let candidate_side = side_of(&sides[1], candidate, &differences, true);

    let accept = differences.remove(0);
    differences.sort_by(|a, b| {
        a.p_adjusted
            .total_cmp(&b.p_adjusted)
            .then_with(|| a.p.total_cmp(&b.p))
            .then_with(|| a.endpoint.cmp(&b.endpoint))
    });
    Comparison {
        alpha,
        design,
        baseline: baseline_side,
        candidate: candidate_side,
        accept,
        checks: differences,
        family_size: family.len(),
        min_effect: DEFAULT_MIN_EFFECT,
    }
}

/// `--min-effect` by default: 10 points of accept rate.
pub const DEFAULT_MIN_EFFECT: f64 = 0.10;

/// z of 80 % power (one-sided), the usual design target.
const Z_POWER_80: f64 = 0.841_621_233_572_914_3;

/// The z whose two-sided normal p-value is `alpha` (bisection; |z| ≤ 40 covers any α > 0).
fn z_two_sided(alpha: f64) -> f64 {
    let (mut lo, mut hi) = (0.0f64, 40.0f64);
    for _ in 0..200 {
        let mid = (lo + hi) / 2.0;
        if stats::two_sided_normal_p(mid) > alpha {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo + hi) / 2.0
}

/// Runs per side a two-sided test at `alpha` needs to see a drop of `effect` in an accept rate
/// of `p0` with 80 % power (normal approximation: n = (z_α/2 + z_β)² · (p0 q0 + p1 q1) / δ²);
/// `None` when no such drop is possible (`p0 < effect`).
pub fn runs_needed(p0: f64, effect: f64, alpha: f64) -> Option<u64> {
    if effect.is_nan() || effect <= 0.0 || p0 < effect {
        return None;
    }
    let p1 = p0 - effect;
    let z = z_two_sided(alpha) + Z_POWER_80;
    let n = z * z * (p0 * (1.0 - p0) + p1 * (1.0 - p1)) / (effect * effect);
    Some(n.ceil().max(1.0) as u64)
}

/// The three outcomes `compare` decides between.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Significantly worse after correction (exit 1).
    Worse,
    /// Not worse, and the samples rule out a drop of the minimum effect (exit 0).
    NotWorse,
    /// Not worse, but the samples cannot rule out a drop of the minimum effect (exit 3);
    /// `needed` runs per side would show one with 80 % power.
    Inconclusive { needed: u64 },
}

fn change(d: &Difference, alpha: f64) -> Change {
    if !d.in_family || d.p_adjusted > alpha {
        return Change::Same;
    }
    let up = match (d.candidate.rate(), d.baseline.rate()) {
        (Some(c), Some(b)) if c != b => c > b,
        _ => return Change::Same,
    };
    if up == d.higher_is_better() {
        Change::Better
    } else {
        Change::Worse
    }
}

fn test_endpoint(
    name: &str,
    endpoint: Endpoint,
    [baseline, candidate]: [Proportion; 2],
    sides: &[Encoded; 2],
    pairs: &[(usize, usize)],
    ln_fact: &LnFactorial,
) -> Difference {
    let (test, discordant, p, testable) = if pairs.is_empty() {
        let table = Table2x2 {
            a: baseline.count,
            b: baseline.n - baseline.count,
            c: candidate.count,
            d: candidate.n - candidate.count,
        };
        let hits = table.a + table.c;
        let testable =
            baseline.n > 0 && candidate.n > 0 && hits > 0 && hits < baseline.n + candidate.n;
        if table.total() <= ln_fact.max() {
            let p = stats::fisher_exact(table, ln_fact);
            (Test::FisherExact, None, p, testable)
        } else {
            let (_, p) = stats::two_proportion_z(table.a, baseline.n, table.c, candidate.n);
            (Test::TwoProportionZ, None, p, testable)
        }
    } else {
        let (mut only_baseline, mut only_candidate) = (0u64, 0u64);
        for &(b, c) in pairs {
            let pair = (sides[0].outcome(b, endpoint), sides[1].outcome(c, endpoint));
            match pair {
                (Some(true), Some(false)) => only_baseline += 1,
                (Some(false), Some(true)) => only_candidate += 1,
                _ => {}
            }
        }
        let discordant = only_baseline + only_candidate;
        let testable = discordant > 0;
        if discordant <= ln_fact.max() {
            let p = stats::mcnemar_exact(only_baseline, only_candidate, ln_fact);
            let d = Some((only_baseline, only_candidate));
            (Test::McNemarExact, d, p, testable)
        } else {
            let (_, p) = stats::mcnemar_chi2(only_baseline, only_candidate);
            let d = Some((only_baseline, only_candidate));
            (Test::McNemarChiSquare, d, p, testable)
        }
    };
    Difference {
        endpoint: name.to_string(),
        baseline,
        candidate,
        test,
        discordant,
        p: if testable { p } else { 1.0 },
        p_adjusted: 1.0,
        in_family: testable,
        change: Change::Same,
    }
}

/// Interns source sha256s across both sides: per run, the index of its input (None without a
/// sha256). Consecutive runs usually share an input, so the last one is tried before hashing.
fn input_ids(sides: [&[RunResult]; 2]) -> [Vec<Option<usize>>; 2] {
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut last: Option<(&str, usize)> = None;
    sides.map(|runs| {
        runs.iter()
            .map(|run| {
                let sha = run.source_sha256.as_deref()?;
                let id = match last {
                    Some((s, id)) if s == sha => id,
                    _ => {
                        let next = index.len();
                        *index.entry(sha).or_insert(next)
                    }
                };
                last = Some((sha, id));
                Some(id)
            })
            .collect()
    })
}

/// Every run's pairing key (input, trial) and index, or None when a run has no key or a key
/// repeats.
fn unique_keys(
    runs: &[RunResult],
    inputs: &[Option<usize>],
) -> Option<HashMap<(usize, u32), usize>> {
    let mut map = HashMap::with_capacity(runs.len());
    for (i, (run, input)) in runs.iter().zip(inputs).enumerate() {
        if map.insert(((*input)?, run.trial?), i).is_some() {
            return None;
        }
    }
    Some(map)
}

/// The design, and for a paired one the (baseline index, candidate index) of every pair in
/// baseline order.
fn pairing(
    [baseline, candidate]: [&[RunResult]; 2],
    [b_inputs, c_inputs]: &[Vec<Option<usize>>; 2],
) -> (Design, Vec<(usize, usize)>) {
    let independent = |reason: &str| {
        let reason = reason.to_string();
        (Design::Independent { reason }, Vec::new())
    };
    let (Some(b), Some(c)) = (
        unique_keys(baseline, b_inputs),
        unique_keys(candidate, c_inputs),
    ) else {
        return independent("not every run has a unique (source sha256, trial) on its side");
    };
    if b.is_empty() {
        return independent("no runs");
    }
    if b.len() != c.len() {
        return independent("the sides' (source sha256, trial) keys differ");
    }
    let mut pairs = Vec::with_capacity(b.len());
    for (i, (run, input)) in baseline.iter().zip(b_inputs).enumerate() {
        match input.zip(run.trial).and_then(|key| c.get(&key)) {
            Some(&j) => pairs.push((i, j)),
            None => return independent("the sides' (source sha256, trial) keys differ"),
        }
    }
    let design = Design::Paired {
        pairs: pairs.len() as u64,
    };
    (design, pairs)
}

/// (distinct inputs, pass^k for k = 1..=min(min trials, MAX_PASS_K)); no figures unless every
/// input was tried at least twice.
fn pass_k(runs: &[RunResult], inputs: &[Option<usize>]) -> (u64, Vec<(u64, f64)>) {
    let mut by_input: HashMap<usize, (u64, u64)> = HashMap::new();
    for (run, input) in runs.iter().zip(inputs) {
        if let Some(id) = input {
            let e = by_input.entry(*id).or_default();
            e.0 += 1;
            e.1 += u64::from(run.verdict == RunVerdict::Accept);
        }
    }
    let inputs: Vec<(u64, u64)> = by_input.into_values().collect();
    let min_trials = inputs.iter().map(|&(n, _)| n).min().unwrap_or(0);
    if min_trials < 2 {
        return (inputs.len() as u64, Vec::new());
    }
    let figures = (1..=min_trials.min(MAX_PASS_K))
        .filter_map(|k| Some((k, stats::pass_hat_k(&inputs, k)?)))
        .collect();
    (inputs.len() as u64, figures)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(n: usize, accepted: usize) -> Vec<RunResult> {
        (0..n)
            .map(|i| RunResult {
                run_id: format!("r{i}"),
                path: format!("p{i}"),
                label: None,
                trial: None,
                model: None,
                source_file: None,
                source_sha256: None,
                verdict: if i < accepted {
                    RunVerdict::Accept
                } else {
                    RunVerdict::Reject
                },
                error: None,
                checks: Vec::new(),
                first_pass: None,
                repair_rounds: None,
            })
            .collect()
    }

    #[test]
    fn tests_above_the_exact_limit_fall_back_to_the_asymptotic_ones() {
        let (b, c) = (runs(200, 180), runs(200, 150));
        let ids = CheckIds::collect([&b, &c]);
        let sides = [encode(&b, &ids), encode(&c, &ids)];
        let endpoints = [(ACCEPT.to_string(), Endpoint::Accept)];
        let observed = [
            sides[0].proportions(&endpoints, 0)[0],
            sides[1].proportions(&endpoints, 0)[0],
        ];
        // A table too small for 400 observations stands in for a side beyond EXACT_LIMIT.
        let small = LnFactorial::new(100);
        let d = test_endpoint(ACCEPT, Endpoint::Accept, observed, &sides, &[], &small);
        assert_eq!(d.test, Test::TwoProportionZ);
        // statsmodels proportions_ztest([180, 150], [200, 200]) p = 7.890224290256148e-05
        assert!((d.p - 7.890224290256148e-05).abs() < 1e-15);
        let pairs: Vec<(usize, usize)> = (0..200).map(|i| (i, i)).collect();
        let d = test_endpoint(
            ACCEPT,
            Endpoint::Accept,
            observed,
            &sides,
            &pairs,
            &LnFactorial::new(10),
        );
        assert_eq!(d.test, Test::McNemarChiSquare);
        assert_eq!(d.discordant, Some((30, 0)));
        // 30 discordant pairs, all one way: statistic (30 − 1)² / 30.
        assert!((d.p - stats::mcnemar_chi2(30, 0).1).abs() < 1e-15);
        let d = test_endpoint(
            ACCEPT,
            Endpoint::Accept,
            observed,
            &sides,
            &pairs,
            &LnFactorial::new(400),
        );
        assert_eq!(d.test, Test::McNemarExact);
    }
}
