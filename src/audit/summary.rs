//! The audit summary, accumulated as results stream in (memory stays flat): verdict counts, the
//! most frequent failing checks with counts and rates, and the worst runs.

use super::results::{RunResult, RunVerdict};
use serde::Serialize;
use std::collections::BTreeMap;

const WORST: usize = 10;

#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    pub runs: u64,
    pub accept: u64,
    pub reject: u64,
    pub error: u64,
    /// check id → (runs failing it, runs warning on it).
    #[serde(skip)]
    checks: BTreeMap<String, (u64, u64)>,
    /// The worst runs: (failing checks, run id, path, first failing check).
    #[serde(skip)]
    worst: Vec<(u32, String, String, String)>,
    /// Why runs could not be verified → count.
    #[serde(skip)]
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
        self.runs += 1;
        match r.verdict {
            RunVerdict::Accept => self.accept += 1,
            RunVerdict::Reject => self.reject += 1,
            RunVerdict::Error => {
                self.error += 1;
                let why = r.error.clone().unwrap_or_default();
                let key: String = why.chars().take(120).collect();
                *self.errors.entry(key).or_default() += 1;
            }
        }
        let mut failed = 0u32;
        let mut first = String::new();
        for c in &r.checks {
            match c.status.as_str() {
                "fail" => {
                    failed += 1;
                    if first.is_empty() {
                        first = c.check.clone();
                    }
                    self.checks.entry(c.check.clone()).or_default().0 += 1;
                }
                "warn" => self.checks.entry(c.check.clone()).or_default().1 += 1,
                _ => {}
            }
        }
        if failed > 0 {
            self.worst
                .push((failed, r.run_id.clone(), r.path.clone(), first));
            if self.worst.len() > WORST * 4 {
                self.trim();
            }
        }
    }

    fn trim(&mut self) {
        self.worst
            .sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        self.worst.truncate(WORST);
    }

    /// Failing checks, most frequent first.
    pub fn top_checks(&self) -> Vec<CheckCount> {
        let mut v: Vec<CheckCount> = self
            .checks
            .iter()
            .filter(|(_, (f, w))| *f > 0 || *w > 0)
            .map(|(id, (f, w))| CheckCount {
                check: id.clone(),
                failed_runs: *f,
                fail_rate: if self.runs == 0 {
                    0.0
                } else {
                    *f as f64 / self.runs as f64
                },
                warned_runs: *w,
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

    pub fn worst_runs(&self) -> Vec<WorstRun> {
        let mut s = self.clone();
        s.trim();
        s.worst
            .into_iter()
            .map(|(n, id, path, first)| WorstRun {
                run_id: id,
                path,
                failed_checks: n,
                first_failure: first,
            })
            .collect()
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
