//! The audit's unit of output: one [`RunResult`] per run, flattened into one [`CheckRow`] per
//! (run, check) for the results table. Compact on purpose: audits hold these, never reports.

use serde::{Deserialize, Serialize};

/// The outcome of verifying one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunVerdict {
    Accept,
    Reject,
    /// vouch could not verify the run (no source, unreadable source, broken archive entry...).
    Error,
}

impl RunVerdict {
    pub fn as_str(self) -> &'static str {
        match self {
            RunVerdict::Accept => "accept",
            RunVerdict::Reject => "reject",
            RunVerdict::Error => "error",
        }
    }
}

/// Everything the audit keeps about one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    /// `run_id` from run.json, else the bundle's path.
    pub run_id: String,
    /// Where it was found (directory, or `archive.zip!inner/dir`).
    pub path: String,
    pub label: Option<String>,
    pub trial: Option<u32>,
    pub model: Option<String>,
    pub source_file: Option<String>,
    pub source_sha256: Option<String>,
    pub verdict: RunVerdict,
    /// Why the run could not be verified (verdict `error`).
    pub error: Option<String>,
    /// Per registered check of the checked families: (check id, worst status, findings count,
    /// first message when not passing).
    pub checks: Vec<CheckOutcome>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckOutcome {
    pub check: String,
    /// `pass`, `info`, `warn` or `fail`.
    pub status: String,
    pub findings: u32,
    pub message: Option<String>,
}

/// One row of the results table: a (run, check) pair. Runs that could not be verified get a
/// single row with check `run.error`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckRow {
    pub run_id: String,
    pub path: String,
    pub label: Option<String>,
    pub trial: Option<u32>,
    pub model: Option<String>,
    pub source_file: Option<String>,
    pub source_sha256: Option<String>,
    pub verdict: String,
    pub check: String,
    pub family: String,
    pub status: String,
    pub findings: u32,
    pub message: Option<String>,
}

impl RunResult {
    pub fn rows(&self) -> Vec<CheckRow> {
        let row = |check: &str, status: &str, findings: u32, message: Option<String>| CheckRow {
            run_id: self.run_id.clone(),
            path: self.path.clone(),
            label: self.label.clone(),
            trial: self.trial,
            model: self.model.clone(),
            source_file: self.source_file.clone(),
            source_sha256: self.source_sha256.clone(),
            verdict: self.verdict.as_str().to_string(),
            check: check.to_string(),
            family: check.split('.').next().unwrap_or(check).to_string(),
            status: status.to_string(),
            findings,
            message,
        };
        if self.verdict == RunVerdict::Error {
            return vec![row("run.error", "fail", 1, self.error.clone())];
        }
        self.checks
            .iter()
            .map(|c| row(&c.check, &c.status, c.findings, c.message.clone()))
            .collect()
    }

    /// Whether check `id` failed in this run.
    pub fn failed(&self, id: &str) -> bool {
        self.checks
            .iter()
            .any(|c| c.check == id && c.status == "fail")
    }
}

/// Group results-table rows back into runs (by run id and path, in first-seen order).
pub fn group_rows(rows: Vec<CheckRow>) -> Vec<RunResult> {
    let mut order: Vec<(String, String)> = Vec::new();
    let mut by: std::collections::HashMap<(String, String), RunResult> =
        std::collections::HashMap::new();
    for row in rows {
        let key = (row.run_id.clone(), row.path.clone());
        let entry = by.entry(key.clone()).or_insert_with(|| {
            order.push(key.clone());
            RunResult {
                run_id: row.run_id.clone(),
                path: row.path.clone(),
                label: row.label.clone(),
                trial: row.trial,
                model: row.model.clone(),
                source_file: row.source_file.clone(),
                source_sha256: row.source_sha256.clone(),
                verdict: match row.verdict.as_str() {
                    "accept" => RunVerdict::Accept,
                    "reject" => RunVerdict::Reject,
                    _ => RunVerdict::Error,
                },
                error: None,
                checks: Vec::new(),
            }
        });
        if row.check == "run.error" {
            entry.error = row.message;
        } else {
            entry.checks.push(CheckOutcome {
                check: row.check,
                status: row.status,
                findings: row.findings,
                message: row.message,
            });
        }
    }
    order.into_iter().filter_map(|k| by.remove(&k)).collect()
}
