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
    /// The verdict before any repair (`vouch run --repair`): the one `run.json` records for
    /// round 0 when the run was repaired (that bundle is gone), else `verdict`. None when the
    /// record has repair rounds but no verdict for round 0.
    #[serde(default)]
    pub first_pass: Option<RunVerdict>,
    /// Repair rounds the run went through: one less than the rounds `run.json` records, 0 when
    /// it records none.
    #[serde(default)]
    pub repair_rounds: Option<u32>,
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
    /// The run's [`RunResult::first_pass`] (`accept`, `reject` or `error`; null when not
    /// recorded). Absent from results files written before it: read as `verdict`.
    pub first_pass_verdict: Option<String>,
    /// The run's [`RunResult::repair_rounds`]. Absent from results files written before it:
    /// read as 0.
    pub repair_rounds: Option<u32>,
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
            first_pass_verdict: self.first_pass.map(|v| v.as_str().to_string()),
            repair_rounds: self.repair_rounds,
        };
        if self.verdict == RunVerdict::Error {
            return vec![row("run.error", "fail", 1, self.error.clone())];
        }
        self.checks
            .iter()
            .map(|c| row(&c.check, &c.status, c.findings, c.message.clone()))
            .collect()
    }

    /// Whether the run went through at least one repair round.
    pub fn repaired(&self) -> bool {
        self.repair_rounds.is_some_and(|n| n > 0)
    }

    /// Whether check `id` failed in this run.
    pub fn failed(&self, id: &str) -> bool {
        self.checks
            .iter()
            .any(|c| c.check == id && c.status == "fail")
    }
}

/// A results-table verdict: anything but `accept` and `reject` is `error`.
fn verdict_of(text: &str) -> RunVerdict {
    match text {
        "accept" => RunVerdict::Accept,
        "reject" => RunVerdict::Reject,
        _ => RunVerdict::Error,
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
                verdict: verdict_of(&row.verdict),
                error: None,
                checks: Vec::new(),
                first_pass: row.first_pass_verdict.as_deref().map(verdict_of),
                repair_rounds: row.repair_rounds,
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
