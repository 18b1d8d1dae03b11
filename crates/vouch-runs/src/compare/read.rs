//! Reading an audit results file (`vouch audit --out`) back into runs: one [`CheckRow`] per
//! (run, check) as JSON lines (`.jsonl`) or CSV with a header (`.csv`), grouped by
//! (run_id, path) in order of first appearance. Columns are matched by name; unknown columns are
//! ignored and `family` is not needed (it is derived from the check id). Files written before
//! `first_pass_verdict` and `repair_rounds` were columns are read as runs never repaired: the
//! first pass is the verdict, 0 repair rounds. Parquet is read by `audit::table`.
//!
//! Limits: a JSON line may be at most [`MAX_LINE`] bytes; a malformed row, an unknown verdict
//! or status, or a run whose rows disagree on its verdict is an error naming the line.
//!
//! [`CheckRow`]: crate::audit::CheckRow

use crate::audit::{results::CheckOutcome, RunResult, RunVerdict};
use serde::{Deserialize, Deserializer};
use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// The longest JSON line accepted (a results row is a few hundred bytes; messages are short).
pub const MAX_LINE: u64 = 1 << 20;

#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("cannot read `{path}`: {why}")]
    Io { path: String, why: String },
    #[error("`{path}` line {line}: {why}")]
    Row {
        path: String,
        line: u64,
        why: String,
    },
    #[error("`{path}`: {why}")]
    Parquet { path: String, why: String },
    #[error(
        "`{path}`: not a results file (expected a .jsonl or .csv written by `vouch audit --out`)"
    )]
    UnknownFormat { path: String },
}

/// A results row as read: the [`CheckRow`](crate::audit::CheckRow) schema, borrowing its text
/// where it can.
#[derive(Deserialize)]
struct Row<'a> {
    #[serde(borrow)]
    run_id: Cow<'a, str>,
    #[serde(borrow)]
    path: Cow<'a, str>,
    #[serde(borrow, default)]
    label: Option<Cow<'a, str>>,
    #[serde(default)]
    trial: Option<u32>,
    #[serde(borrow, default)]
    model: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    source_file: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    source_sha256: Option<Cow<'a, str>>,
    #[serde(borrow)]
    verdict: Cow<'a, str>,
    #[serde(borrow)]
    check: Cow<'a, str>,
    #[serde(borrow)]
    status: Cow<'a, str>,
    #[serde(default)]
    findings: u32,
    #[serde(borrow, default)]
    message: Option<Cow<'a, str>>,
    /// None when the column is absent (a file written before it), Some(None) when null.
    #[serde(default, deserialize_with = "present")]
    first_pass_verdict: Option<Option<String>>,
    /// None when the column is absent, Some(None) when null.
    #[serde(default, deserialize_with = "present")]
    repair_rounds: Option<Option<u32>>,
}

/// A column that is there, null or not (an absent one is `None` through `default`).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

fn verdict_of(text: &str) -> Option<RunVerdict> {
    match text {
        "accept" => Some(RunVerdict::Accept),
        "reject" => Some(RunVerdict::Reject),
        "error" => Some(RunVerdict::Error),
        _ => None,
    }
}

/// Read a results file by its extension.
pub fn read_results(path: &Path) -> Result<Vec<RunResult>, ReadError> {
    let shown = path.display().to_string();
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let open = || {
        // A FIFO or a device would block or never end: only regular files are read.
        match std::fs::metadata(path) {
            Ok(m) if !m.is_file() => {
                return Err(ReadError::Io {
                    path: shown.clone(),
                    why: "not a regular file".into(),
                })
            }
            _ => {}
        }
        std::fs::File::open(path).map_err(|e| ReadError::Io {
            path: shown.clone(),
            why: e.to_string(),
        })
    };
    match extension.as_deref() {
        Some("jsonl" | "ndjson") => read_jsonl(&shown, BufReader::new(open()?)),
        Some("csv") => read_csv(&shown, BufReader::new(open()?)),
        #[cfg(not(feature = "tables"))]
        Some("parquet") => Err(ReadError::Parquet {
            path: shown,
            why: "this vouch was built without the `tables` feature (polars)".into(),
        }),
        #[cfg(feature = "tables")]
        Some("parquet") => crate::audit::table::read_parquet(path)
            .map(crate::audit::results::group_rows)
            .map_err(|why| ReadError::Parquet { path: shown, why }),
        _ => Err(ReadError::UnknownFormat { path: shown }),
    }
}

/// Read JSON lines (blank lines are skipped).
pub fn read_jsonl(path: &str, mut reader: impl BufRead) -> Result<Vec<RunResult>, ReadError> {
    let mut runs = Grouper::default();
    let mut buf = Vec::new();
    let mut line = 0u64;
    loop {
        buf.clear();
        line += 1;
        let read = reader
            .by_ref()
            .take(MAX_LINE + 1)
            .read_until(b'\n', &mut buf)
            .map_err(|e| io(path, e))?;
        if read == 0 {
            break;
        }
        if buf.len() as u64 > MAX_LINE {
            return Err(row_error(
                path,
                line,
                format!("longer than {MAX_LINE} bytes"),
            ));
        }
        let text = std::str::from_utf8(&buf)
            .map_err(|e| row_error(path, line, format!("not UTF-8 ({e})")))?
            .trim();
        if text.is_empty() {
            continue;
        }
        let row: Row = serde_json::from_str(text)
            .map_err(|e| row_error(path, line, format!("not a results row: {e}")))?;
        runs.add(row).map_err(|why| row_error(path, line, why))?;
    }
    Ok(runs.runs)
}

/// Read CSV with a header row.
pub fn read_csv(path: &str, reader: impl Read) -> Result<Vec<RunResult>, ReadError> {
    let mut csv = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(reader);
    let headers = csv
        .headers()
        .map_err(|e| row_error(path, 1, e.to_string()))?
        .clone();
    let mut runs = Grouper::default();
    let mut record = csv::StringRecord::new();
    loop {
        match csv.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line());
                return Err(row_error(path, line, e.to_string()));
            }
        }
        let line = record.position().map_or(0, |p| p.line());
        let row: Row = record
            .deserialize(Some(&headers))
            .map_err(|e| row_error(path, line, format!("not a results row: {e}")))?;
        runs.add(row).map_err(|why| row_error(path, line, why))?;
    }
    Ok(runs.runs)
}

/// `accept, 1` or `null, null`: a run's first pass and repair rounds as a row holds them.
fn repair_text(first_pass: Option<RunVerdict>, rounds: Option<u32>) -> String {
    format!(
        "`{}, {}`",
        first_pass.map_or("null", RunVerdict::as_str),
        rounds.map_or_else(|| "null".to_string(), |n| n.to_string())
    )
}

fn io(path: &str, e: std::io::Error) -> ReadError {
    ReadError::Io {
        path: path.to_string(),
        why: e.to_string(),
    }
}

fn row_error(path: &str, line: u64, why: String) -> ReadError {
    ReadError::Row {
        path: path.to_string(),
        line,
        why,
    }
}

/// Groups rows into runs by (run_id, path), keeping first-appearance order.
#[derive(Default)]
struct Grouper {
    index: HashMap<(String, String), usize>,
    runs: Vec<RunResult>,
    /// The run the previous row belonged to: rows of a run are usually consecutive.
    last: Option<usize>,
}

impl Grouper {
    fn add(&mut self, row: Row) -> Result<(), String> {
        let verdict =
            verdict_of(&row.verdict).ok_or_else(|| format!("unknown verdict `{}`", row.verdict))?;
        let first_pass = match &row.first_pass_verdict {
            None => Some(verdict),
            Some(None) => None,
            Some(Some(v)) => {
                Some(verdict_of(v).ok_or_else(|| format!("unknown first_pass_verdict `{v}`"))?)
            }
        };
        let repair_rounds = row.repair_rounds.unwrap_or(Some(0));
        let status = match row.status.as_ref() {
            s @ ("pass" | "info" | "warn" | "fail" | "skipped") => s,
            other => return Err(format!("unknown status `{other}`")),
        };
        let same_run = |r: &RunResult| r.run_id == row.run_id && r.path == row.path;
        let at = match self.last.filter(|&i| same_run(&self.runs[i])) {
            Some(i) => i,
            None => {
                let key = (row.run_id.to_string(), row.path.to_string());
                let next = self.runs.len();
                let i = *self.index.entry(key).or_insert(next);
                if i == next {
                    self.runs.push(RunResult {
                        run_id: row.run_id.to_string(),
                        path: row.path.to_string(),
                        label: row.label.as_deref().map(str::to_string),
                        trial: row.trial,
                        model: row.model.as_deref().map(str::to_string),
                        source_file: row.source_file.as_deref().map(str::to_string),
                        source_sha256: row.source_sha256.as_deref().map(str::to_string),
                        verdict,
                        error: None,
                        checks: Vec::new(),
                        first_pass,
                        repair_rounds,
                    });
                }
                i
            }
        };
        self.last = Some(at);
        let run = &mut self.runs[at];
        if run.verdict != verdict {
            return Err(format!(
                "run `{}` has verdict `{}` on an earlier row and `{}` here",
                run.run_id,
                run.verdict.as_str(),
                verdict.as_str()
            ));
        }
        if (run.first_pass, run.repair_rounds) != (first_pass, repair_rounds) {
            return Err(format!(
                "run `{}` has first_pass_verdict and repair_rounds {} on an earlier row and {} here",
                run.run_id,
                repair_text(run.first_pass, run.repair_rounds),
                repair_text(first_pass, repair_rounds)
            ));
        }
        if verdict == RunVerdict::Error && row.check == super::RUN_ERROR {
            run.error = row.message.as_deref().map(str::to_string);
            return Ok(());
        }
        run.checks.push(CheckOutcome {
            check: row.check.to_string(),
            status: status.to_string(),
            findings: row.findings,
            message: row.message.as_deref().map(str::to_string),
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(run: &str, verdict: &str, check: &str, status: &str) -> String {
        format!(
            r#"{{"run_id":"{run}","path":"p/{run}","label":null,"trial":1,"model":null,"source_file":null,"source_sha256":"ab","verdict":"{verdict}","check":"{check}","family":"x","status":"{status}","findings":0,"message":null}}"#
        )
    }

    #[test]
    fn interleaved_rows_group_by_run_in_order_of_first_appearance() {
        let text = [
            line("a", "reject", "memo.x", "fail"),
            line("b", "accept", "memo.x", "pass"),
            String::new(),
            line("a", "reject", "svg.y", "warn"),
        ]
        .join("\n");
        let runs = read_jsonl("t", text.as_bytes()).unwrap();
        assert_eq!(runs.len(), 2);
        assert_eq!(runs[0].run_id, "a");
        assert_eq!(runs[0].checks.len(), 2);
        assert_eq!(runs[0].checks[1].status, "warn");
        assert_eq!(runs[1].verdict, RunVerdict::Accept);
    }

    #[test]
    fn a_run_whose_rows_disagree_on_the_verdict_is_rejected_with_its_line() {
        let text = [
            line("a", "reject", "memo.x", "fail"),
            line("a", "accept", "svg.y", "pass"),
        ]
        .join("\n");
        let e = read_jsonl("t", text.as_bytes()).unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("verdict"), "{e}");
    }

    #[test]
    fn unknown_verdicts_and_statuses_are_errors() {
        let e = read_jsonl("t", line("a", "maybe", "m.x", "fail").as_bytes()).unwrap_err();
        assert!(e.to_string().contains("unknown verdict `maybe`"), "{e}");
        let e = read_jsonl("t", line("a", "accept", "m.x", "meh").as_bytes()).unwrap_err();
        assert!(e.to_string().contains("unknown status `meh`"), "{e}");
    }

    #[test]
    fn csv_needs_only_the_core_columns_and_ignores_others() {
        let text = "status,check,verdict,path,run_id,extra\nfail,memo.x,reject,p,r1,zzz\n";
        let runs = read_csv("t", text.as_bytes()).unwrap();
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].label, None);
        assert_eq!(runs[0].trial, None);
        assert_eq!(runs[0].checks[0].check, "memo.x");
    }

    #[test]
    fn an_overlong_json_line_is_an_error_not_an_allocation() {
        let text = vec![b'x'; MAX_LINE as usize + 10];
        let e = read_jsonl("t", &text[..]).unwrap_err().to_string();
        assert!(e.contains("longer than"), "{e}");
    }
}
