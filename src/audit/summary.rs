//! The audit summary: verdict counts, the most frequent failing checks with counts and rates,
//! and the worst runs. Results stream in and only compact rows are kept (a run's id and path,
//! and one small row per failing or warning check); the rankings are polars group-bys over them.

use super::results::{RunResult, RunVerdict};
use polars::prelude::*;
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
}

#[derive(Clone, Debug, Serialize)]
pub struct CheckCount {
    pub check: String,
    pub failed_runs: u64,
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
            }
        }
        for c in &r.checks {
            let fail = match c.status.as_str() {
                "fail" => true,
                "warn" => false,
                _ => continue,
            };
            self.bad_run.push(idx);
            self.bad_check.push(c.check.clone());
            self.bad_fail.push(fail);
        }
    }

    fn frame(&self) -> PolarsResult<DataFrame> {
        df!(
            "run" => self.bad_run.clone(),
            "check" => self.bad_check.clone(),
            "fail" => self.bad_fail.clone(),
        )
    }

    /// Failing (and warning) checks, most frequent first: a group-by over the compact rows.
    pub fn top_checks(&self) -> Vec<CheckCount> {
        let run = || -> PolarsResult<Vec<CheckCount>> {
            let df = self.frame()?;
            let fails = df.filter(&df.column("fail")?.bool()?.clone())?;
            let warns = df.filter(&!df.column("fail")?.bool()?.clone())?;
            let count = |d: &DataFrame| -> PolarsResult<BTreeMap<String, u64>> {
                if d.height() == 0 {
                    return Ok(BTreeMap::new());
                }
                let g = d.group_by(["check"])?.select(["run"]).count()?;
                let checks = g.column("check")?.str()?.clone();
                let counts = g.column("run_count")?.cast(&DataType::UInt64)?;
                let counts = counts.u64()?;
                Ok(checks
                    .iter()
                    .zip(counts.iter())
                    .filter_map(|(c, n)| Some((c?.to_string(), n?)))
                    .collect())
            };
            let (f, w) = (count(&fails)?, count(&warns)?);
            let mut ids: Vec<&String> = f.keys().chain(w.keys()).collect();
            ids.sort();
            ids.dedup();
            let mut v: Vec<CheckCount> = ids
                .into_iter()
                .map(|id| {
                    let failed = f.get(id).copied().unwrap_or(0);
                    CheckCount {
                        check: id.clone(),
                        failed_runs: failed,
                        fail_rate: if self.runs == 0 {
                            0.0
                        } else {
                            failed as f64 / self.runs as f64
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
            Ok(v)
        };
        run().unwrap_or_default()
    }

    /// The runs with the most failing checks: a group-by over the compact rows.
    pub fn worst_runs(&self) -> Vec<WorstRun> {
        let run = || -> PolarsResult<Vec<WorstRun>> {
            let df = self.frame()?;
            let fails = df.filter(&df.column("fail")?.bool()?.clone())?;
            if fails.height() == 0 {
                return Ok(Vec::new());
            }
            let g = fails.group_by(["run"])?.select(["check"]).count()?;
            let runs = g.column("run")?.u32()?.clone();
            let counts = g.column("check_count")?.cast(&DataType::UInt32)?;
            let counts = counts.u32()?;
            // The first failing check of a run, in registry order.
            let mut first: std::collections::HashMap<u32, &str> = std::collections::HashMap::new();
            for ((r, c), f) in self.bad_run.iter().zip(&self.bad_check).zip(&self.bad_fail) {
                if *f {
                    first.entry(*r).or_insert(c.as_str());
                }
            }
            let mut v: Vec<WorstRun> = runs
                .iter()
                .zip(counts.iter())
                .filter_map(|(r, n)| {
                    let r = r?;
                    let (id, path) = self.ids.get(r as usize)?;
                    Some(WorstRun {
                        run_id: id.clone(),
                        path: path.clone(),
                        failed_checks: n?,
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
            Ok(v)
        };
        run().unwrap_or_default()
    }

    pub fn errors(&self) -> &BTreeMap<String, u64> {
        &self.errors
    }

    pub fn render_human(&self) -> String {
        let mut out = format!(
            "audited {} runs: {} accept, {} reject, {} could not be verified\n",
            self.runs, self.accept, self.reject, self.error
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
        }
        out
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
        });
        serde_json::to_string_pretty(&doc).expect("summary serializes") + "\n"
    }

    pub fn render_markdown(&self) -> String {
        let mut out = format!(
            "### vouch audit: {} runs — {} accept, {} reject, {} not verified\n\n",
            self.runs, self.accept, self.reject, self.error
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
        out
    }
}
