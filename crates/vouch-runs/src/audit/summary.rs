//! The audit summary: verdict counts, the most frequent failing checks with counts and rates,
//! and the worst runs. Results stream in and only compact rows are kept (a run's id and path,
//! and one small row per failing or warning check); the rankings are group-bys over them — in
//! polars with the `tables` feature, else in plain maps.

use super::results::{RunResult, RunVerdict};
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

    pub fn render_human(&self) -> String {
        let mut out = format!(
            "audited {}: {} accept, {} reject, {} could not be verified\n",
            vouch_core::report::plural(self.runs as usize, "run", "runs"),
            self.accept,
            self.reject,
            self.error
        );
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
        let doc = serde_json::json!({
            "schema": "vouch.audit",
            "schema_version": 1,
            "runs": self.runs,
            "verdicts": { "accept": self.accept, "reject": self.reject, "error": self.error },
            "failing_checks": self.top_checks(),
            "worst_runs": self.worst_runs(),
            "errors": self.errors,
            "not_verified": self.not_verified(),
        });
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
