//! The audit summary: verdict counts, the most frequent failing checks with counts and rates, and
//! the worst runs; when some run went through `vouch run --repair`, the first-pass and after-repair
//! accept rates per label. Results stream in and only compact rows are kept (a run's id and path,
//! and one small row per failing or warning check); the rankings are group-bys over them — in
//! polars with the `tables` feature, else in plain maps.

use super::repair::RepairTally;
use super::results::{RunResult, RunVerdict};
use crate::plot::proportion_text;
use serde::Serialize;
use std::collections::BTreeMap;

const WORST: usize = 10;

#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub runs: u64,
    pub accept: u64,
    pub reject: u64,
    pub error: u64,
    /// Per run: (run id, path).
    ids: Vec<(String, String)>,
    /// One row per failing or warning (run, check): run index, check id, status.
    bad_run: Vec<u32>,
    bad_check: Vec<String>,
    bad_fail: Vec<bool>,
    /// Why runs could not be verified → count.
    errors: BTreeMap<String, u64>,
    /// Check id → verified runs in which it did not run (rates exclude them).
    skipped: std::collections::HashMap<String, u64>,
    /// The first [`LISTED`] runs that could not be verified: (path, why).
    not_verified: Vec<(String, String)>,
    /// Per label: first pass and after repair (shown only when some run was repaired).
    repair: BTreeMap<Option<String>, RepairTally>,
}

/// What the summary calls runs without a label.
pub const NO_LABEL: &str = "(no label)";
/// The repair tables' row of every run.
const ALL_RUNS: &str = "all runs";

/// Whose runs a row of the repair tables counts.
enum RepairRow<'a> {
    /// One label's (None: the runs without one).
    Label(&'a Option<String>),
    /// Every run's.
    All,
}

/// Runs that could not be verified listed by path in a summary (all of them are in the results
/// file).
pub const LISTED: usize = 1000;

#[derive(Clone, Debug, Serialize)]
pub struct NotVerified {
    pub path: String,
    pub error: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct CheckCount {
    pub check: String,
    pub failed_runs: u64,
    /// Verified runs in which the check ran (the rate's denominator).
    pub ran_runs: u64,
    pub fail_rate: f64,
    pub warned_runs: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct WorstRun {
    pub run_id: String,
    pub path: String,
    pub failed_checks: u32,
    pub first_failure: String,
}

impl Summary {
    pub fn add(&mut self, r: &RunResult) {
        let idx = self.ids.len() as u32;
        self.ids.push((r.run_id.clone(), r.path.clone()));
        self.runs += 1;
        self.repair.entry(r.label.clone()).or_default().add(r);
        match r.verdict {
            RunVerdict::Accept => self.accept += 1,
            RunVerdict::Reject => self.reject += 1,
            RunVerdict::Error => {
                self.error += 1;
                let key: String = r
                    .error
                    .clone()
                    .unwrap_or_default()
                    .chars()
                    .take(120)
                    .collect();
                *self.errors.entry(key).or_default() += 1;
                if self.not_verified.len() < LISTED {
                    self.not_verified
                        .push((r.path.clone(), r.error.clone().unwrap_or_default()));
                }
            }
        }
        for c in &r.checks {
            let fail = match c.status.as_str() {
                "fail" => true,
                "warn" => false,
                "skipped" => {
                    *self.skipped.entry(c.check.clone()).or_default() += 1;
                    continue;
                }
                _ => continue,
            };
            self.bad_run.push(idx);
            self.bad_check.push(c.check.clone());
            self.bad_fail.push(fail);
        }
    }

    /// Failing (and warning) checks, most frequent first.
    pub fn top_checks(&self) -> Vec<CheckCount> {
        let (f, w) = check_counts(&self.bad_run, &self.bad_check, &self.bad_fail);
        let mut ids: Vec<&String> = f.keys().chain(w.keys()).collect();
        ids.sort();
        ids.dedup();
        let mut v: Vec<CheckCount> = ids
            .into_iter()
            .map(|id| {
                let failed = f.get(id).copied().unwrap_or(0);
                let ran = (self.accept + self.reject)
                    .saturating_sub(self.skipped.get(id).copied().unwrap_or(0));
                CheckCount {
                    check: id.clone(),
                    failed_runs: failed,
                    ran_runs: ran,
                    fail_rate: if ran == 0 {
                        0.0
                    } else {
                        failed as f64 / ran as f64
                    },
                    warned_runs: w.get(id).copied().unwrap_or(0),
                }
            })
            .collect();
        v.sort_by(|a, b| {
            b.failed_runs
                .cmp(&a.failed_runs)
                .then(b.warned_runs.cmp(&a.warned_runs))
                .then(a.check.cmp(&b.check))
        });
        v
    }

    /// The runs with the most failing checks.
    pub fn worst_runs(&self) -> Vec<WorstRun> {
        // The first failing check of a run, in registry order.
        let mut first: std::collections::HashMap<u32, &str> = std::collections::HashMap::new();
        for ((r, c), f) in self.bad_run.iter().zip(&self.bad_check).zip(&self.bad_fail) {
            if *f {
                first.entry(*r).or_insert(c.as_str());
            }
        }
        let mut v: Vec<WorstRun> = fails_per_run(&self.bad_run, &self.bad_fail)
            .into_iter()
            .filter_map(|(r, n)| {
                let (id, path) = self.ids.get(r as usize)?;
                Some(WorstRun {
                    run_id: id.clone(),
                    path: path.clone(),
                    failed_checks: n,
                    first_failure: first.get(&r).map(|s| s.to_string()).unwrap_or_default(),
                })
            })
            .collect();
        v.sort_by(|a, b| {
            b.failed_checks
                .cmp(&a.failed_checks)
                .then(a.path.cmp(&b.path))
        });
        v.truncate(WORST);
        v
    }

    pub fn errors(&self) -> &BTreeMap<String, u64> {
        &self.errors
    }

    /// Whether some run went through at least one repair round: only then do the reports show
    /// first-pass and after-repair rates.
    pub fn repaired(&self) -> bool {
        self.repair.values().any(|t| t.repaired > 0)
    }

    /// Per label, the labels with the most runs first (then by label): first pass and after
    /// repair.
    pub fn repair_by_label(&self) -> Vec<(&Option<String>, &RepairTally)> {
        let mut v: Vec<(&Option<String>, &RepairTally)> = self.repair.iter().collect();
        v.sort_by(|a, b| b.1.runs.cmp(&a.1.runs).then_with(|| a.0.cmp(b.0)));
        v
    }

    /// First pass and after repair over every run.
    pub fn repair_total(&self) -> RepairTally {
        let mut all = RepairTally::default();
        for t in self.repair.values() {
            all.runs += t.runs;
            all.accepted += t.accepted;
            all.first_known += t.first_known;
            all.first_accepted += t.first_accepted;
            all.repaired += t.repaired;
            all.rounds += t.rounds;
        }
        all
    }

    /// The rows of the repair tables: the [`LABELS_SHOWN`](super::html::LABELS_SHOWN) largest
    /// labels, then every run's when there is more than one label; and how many labels were
    /// left out.
    fn repair_rows(&self) -> (Vec<(RepairRow<'_>, RepairTally)>, usize) {
        let labels = self.repair_by_label();
        let shown = labels.len().min(super::html::LABELS_SHOWN);
        let mut rows: Vec<(RepairRow<'_>, RepairTally)> = labels[..shown]
            .iter()
            .map(|(l, t)| (RepairRow::Label(l), **t))
            .collect();
        if labels.len() > 1 {
            rows.push((RepairRow::All, self.repair_total()));
        }
        (rows, labels.len() - shown)
    }

    fn render_repair_human(&self, out: &mut String) {
        let (rows, more) = self.repair_rows();
        let header = [
            "label",
            "runs",
            "first pass",
            "after repair",
            "repaired",
            "mean rounds",
        ]
        .map(str::to_string);
        let mut table = vec![header];
        for (label, t) in &rows {
            let label = match label {
                RepairRow::Label(l) => {
                    vouch_core::report::inert(l.as_deref().unwrap_or(NO_LABEL)).into_owned()
                }
                RepairRow::All => ALL_RUNS.to_string(),
            };
            table.push([
                label,
                t.runs.to_string(),
                proportion_text(&t.first_pass()),
                proportion_text(&t.after_repair()),
                t.repaired.to_string(),
                t.mean_text(),
            ]);
        }
        let mut widths = [0usize; 6];
        for row in &table {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        out.push_str("\nfirst pass and after repair (vouch run --repair), per label:\n");
        for row in &table {
            let mut line = String::new();
            for (i, (cell, w)) in row.iter().zip(widths).enumerate() {
                // Counts right-aligned, text left-aligned.
                if matches!(i, 1 | 4 | 5) {
                    line.push_str(&format!("  {cell:>w$}"));
                } else {
                    line.push_str(&format!("  {cell:<w$}"));
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        if more > 0 {
            out.push_str(&format!(
                "  … and {} more (their runs are in `{ALL_RUNS}`)\n",
                vouch_core::report::plural(more, "label", "labels")
            ));
        }
    }

    fn render_repair_markdown(&self, out: &mut String) {
        let (rows, more) = self.repair_rows();
        out.push_str("| label | runs | first pass | after repair | repaired | mean repair rounds |\n|---|---:|---:|---:|---:|---:|\n");
        for (label, t) in &rows {
            let label = match label {
                RepairRow::Label(Some(l)) => format!(
                    "`{}`",
                    vouch_core::report::inert(l)
                        .replace('|', "\\|")
                        .replace('`', "'")
                ),
                RepairRow::Label(None) => NO_LABEL.to_string(),
                RepairRow::All => ALL_RUNS.to_string(),
            };
            out.push_str(&format!(
                "| {label} | {} | {} | {} | {} | {} |\n",
                t.runs,
                proportion_text(&t.first_pass()),
                proportion_text(&t.after_repair()),
                t.repaired,
                t.mean_text()
            ));
        }
        if more > 0 {
            out.push_str(&format!(
                "\n{} more not shown; their runs are in {ALL_RUNS}.\n",
                vouch_core::report::plural(more, "label", "labels")
            ));
        }
        out.push('\n');
    }

    /// `{all, labels: [{label, …}]}`, every label, the largest first.
    fn repair_json(&self) -> serde_json::Value {
        let labels: Vec<serde_json::Value> = self
            .repair_by_label()
            .into_iter()
            .map(|(label, t)| {
                let mut v = t.json();
                v["label"] = serde_json::json!(label);
                v
            })
            .collect();
        serde_json::json!({ "all": self.repair_total().json(), "labels": labels })
    }

    pub fn render_human(&self) -> String {
        let mut out = format!(
            "audited {}: {} accept, {} reject, {} could not be verified\n",
            vouch_core::report::plural(self.runs as usize, "run", "runs"),
            self.accept,
            self.reject,
            self.error
        );
        if self.repaired() {
            self.render_repair_human(&mut out);
        }
        let top = self.top_checks();
        if !top.is_empty() {
            out.push_str("\nmost frequent failing checks:\n");
            for c in top.iter().take(15) {
                out.push_str(&format!(
                    "  {:<38} {:>7} runs  {:>6.2} %{}\n",
                    c.check,
                    c.failed_runs,
                    c.fail_rate * 100.0,
                    if c.warned_runs > 0 {
                        format!("  ({} warned)", c.warned_runs)
                    } else {
                        String::new()
                    }
                ));
            }
        }
        let worst = self.worst_runs();
        if !worst.is_empty() {
            out.push_str("\nworst runs:\n");
            for w in &worst {
                out.push_str(&format!(
                    "  {:>3} failing checks  {}  (first: {})\n",
                    w.failed_checks, w.path, w.first_failure
                ));
            }
        }
        if !self.errors.is_empty() {
            out.push_str("\ncould not verify:\n");
            for (why, n) in &self.errors {
                out.push_str(&format!("  {n:>7}  {why}\n"));
            }
            out.push_str("\nruns not verified:\n");
            for nv in self.not_verified().iter().take(20) {
                out.push_str(&format!(
                    "  {}: {}\n",
                    vouch_core::report::inert(&nv.path),
                    vouch_core::report::inert(&nv.error)
                ));
            }
            if self.error > 20 {
                out.push_str(&format!(
                    "  … and {} more (every run is in the results file, -o FILE)\n",
                    self.error - 20
                ));
            }
        }
        out
    }

    /// The runs that could not be verified (the first [`LISTED`]), by path.
    pub fn not_verified(&self) -> Vec<NotVerified> {
        let mut v: Vec<NotVerified> = self
            .not_verified
            .iter()
            .map(|(path, error)| NotVerified {
                path: path.clone(),
                error: error.clone(),
            })
            .collect();
        v.sort_by(|a, b| a.path.cmp(&b.path));
        v
    }

    pub fn render_json(&self) -> String {
        let mut doc = serde_json::json!({
            "schema": "vouch.audit",
            "schema_version": 1,
            "runs": self.runs,
            "verdicts": { "accept": self.accept, "reject": self.reject, "error": self.error },
            "failing_checks": self.top_checks(),
            "worst_runs": self.worst_runs(),
            "errors": self.errors,
            "not_verified": self.not_verified(),
        });
        if self.repaired() {
            doc["repair"] = self.repair_json();
        }
        serde_json::to_string_pretty(&doc).expect("summary serializes") + "\n"
    }

    pub fn render_markdown(&self) -> String {
        let mut out = format!(
            "### vouch audit: {} — {} accept, {} reject, {} not verified\n\n",
            vouch_core::report::plural(self.runs as usize, "run", "runs"),
            self.accept,
            self.reject,
            self.error
        );
        if self.repaired() {
            self.render_repair_markdown(&mut out);
        }
        let top = self.top_checks();
        if !top.is_empty() {
            out.push_str("| check | failed runs | rate | warned |\n|---|---:|---:|---:|\n");
            for c in top.iter().take(20) {
                out.push_str(&format!(
                    "| `{}` | {} | {:.2} % | {} |\n",
                    c.check,
                    c.failed_runs,
                    c.fail_rate * 100.0,
                    c.warned_runs
                ));
            }
        }
        let worst = self.worst_runs();
        if !worst.is_empty() {
            out.push_str("\n<details><summary>worst runs</summary>\n\n| run | failing checks | first failure |\n|---|---:|---|\n");
            for w in &worst {
                out.push_str(&format!(
                    "| `{}` | {} | `{}` |\n",
                    w.path, w.failed_checks, w.first_failure
                ));
            }
            out.push_str("\n</details>\n");
        }
        let nv = self.not_verified();
        if !nv.is_empty() {
            out.push_str(
                "\n<details><summary>runs not verified</summary>\n\n| run | why |\n|---|---|\n",
            );
            for r in nv.iter().take(100) {
                out.push_str(&format!(
                    "| `{}` | {} |\n",
                    vouch_core::report::inert(&r.path)
                        .replace('|', "\\|")
                        .replace('`', "'"),
                    vouch_core::report::inert(&r.error).replace('|', "\\|")
                ));
            }
            out.push_str("\n</details>\n");
        }
        out
    }
}

/// Runs failing and warning each check: a polars group-by over the compact rows.
#[cfg(feature = "tables")]
fn check_counts(
    run: &[u32],
    check: &[String],
    fail: &[bool],
) -> (BTreeMap<String, u64>, BTreeMap<String, u64>) {
    super::table::check_counts(run, check, fail).expect("group-by over in-memory columns")
}

/// Failing checks per run: a polars group-by over the compact rows.
#[cfg(feature = "tables")]
fn fails_per_run(run: &[u32], fail: &[bool]) -> Vec<(u32, u32)> {
    super::table::fails_per_run(run, fail).expect("group-by over in-memory columns")
}

#[cfg(not(feature = "tables"))]
fn check_counts(
    _run: &[u32],
    check: &[String],
    fail: &[bool],
) -> (BTreeMap<String, u64>, BTreeMap<String, u64>) {
    let (mut f, mut w) = (BTreeMap::new(), BTreeMap::new());
    for (c, failed) in check.iter().zip(fail) {
        *if *failed { &mut f } else { &mut w }
            .entry(c.clone())
            .or_insert(0) += 1;
    }
    (f, w)
}

#[cfg(not(feature = "tables"))]
fn fails_per_run(run: &[u32], fail: &[bool]) -> Vec<(u32, u32)> {
    let mut n: BTreeMap<u32, u32> = BTreeMap::new();
    for (r, failed) in run.iter().zip(fail) {
        if *failed {
            *n.entry(*r).or_insert(0) += 1;
        }
    }
    n.into_iter().collect()
}
