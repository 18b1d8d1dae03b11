//! The audit's reports for CI systems: JUnit XML (one testcase per run), GitHub workflow
//! annotations and SARIF (one result per failing or warning check of a run). They need each
//! run's failing checks and messages, so the runs that were not accepted are kept while the
//! audit streams ([`Collected`]); accepted runs are only counted.

use super::results::{RunResult, RunVerdict};
use quick_xml::escape::escape;
use serde_json::{json, Map};
use std::fmt::Write;
use vouch_core::report::{github, sarif, Status};

/// Runs kept in full; the others are counted (a CI report of a million failures helps no one).
pub const MAX_KEPT: usize = 10_000;

#[derive(Default)]
pub struct Collected {
    pub accepted: u64,
    /// Not accepted: rejected or not verifiable, in the order they finished.
    pub kept: Vec<RunResult>,
    pub not_kept: u64,
}

impl Collected {
    pub fn add(&mut self, r: &RunResult) {
        match r.verdict {
            RunVerdict::Accept => self.accepted += 1,
            _ if self.kept.len() < MAX_KEPT => self.kept.push(r.clone()),
            _ => self.not_kept += 1,
        }
    }

    fn sorted(&self) -> Vec<&RunResult> {
        let mut v: Vec<&RunResult> = self.kept.iter().collect();
        v.sort_by(|a, b| a.path.cmp(&b.path));
        v
    }

    fn total(&self) -> u64 {
        self.accepted + self.kept.len() as u64 + self.not_kept
    }
}

fn status_of(s: &str) -> Option<Status> {
    match s {
        "fail" => Some(Status::Fail),
        "warn" => Some(Status::Warn),
        _ => None,
    }
}

/// The failing and warning checks of a run: (status, check id, message).
fn bad_checks(r: &RunResult) -> Vec<(Status, &str, &str)> {
    r.checks
        .iter()
        .filter_map(|c| {
            status_of(&c.status).map(|s| (s, c.check.as_str(), c.message.as_deref().unwrap_or("")))
        })
        .collect()
}

fn rejected(c: &Collected) -> usize {
    c.kept
        .iter()
        .filter(|r| r.verdict == RunVerdict::Reject)
        .count()
}

pub fn junit(c: &Collected) -> String {
    let errors = c
        .kept
        .iter()
        .filter(|r| r.verdict == RunVerdict::Error)
        .count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"vouch audit\" tests=\"{}\" failures=\"{}\" errors=\"{errors}\" skipped=\"0\">",
        c.total(),
        rejected(c),
    );
    let _ = writeln!(
        out,
        "  <testsuite name=\"runs\" tests=\"{}\" failures=\"{}\" errors=\"{errors}\">",
        c.total(),
        rejected(c),
    );
    if c.accepted > 0 {
        let _ = writeln!(
            out,
            "    <testcase classname=\"vouch.audit\" name=\"{} accepted\"/>",
            vouch_core::report::plural(c.accepted as usize, "run", "runs")
        );
    }
    for r in c.sorted() {
        let _ = write!(
            out,
            "    <testcase classname=\"vouch.audit.{}\" name=\"{}\">",
            escape(r.label.as_deref().unwrap_or("runs")),
            escape(r.path.as_str())
        );
        match r.verdict {
            RunVerdict::Error => {
                let why = r.error.as_deref().unwrap_or("");
                let _ = write!(
                    out,
                    "<error message=\"could not be verified\">{}</error>",
                    escape(why)
                );
            }
            _ => {
                let bad = bad_checks(r);
                let fails = bad.iter().filter(|(s, ..)| *s == Status::Fail).count();
                let text: String = bad
                    .iter()
                    .map(|(s, id, m)| format!("{} {id}: {m}\n", s.as_str()))
                    .collect();
                let _ = write!(
                    out,
                    "<failure message=\"{}\">{}</failure>",
                    escape(
                        vouch_core::report::plural(fails, "failing check", "failing checks")
                            .as_str()
                    ),
                    escape(text.as_str())
                );
            }
        }
        out.push_str("</testcase>\n");
    }
    if c.not_kept > 0 {
        let _ = writeln!(
            out,
            "    <testcase classname=\"vouch.audit\" name=\"{} more runs not accepted (not listed)\"><failure message=\"not listed\"/></testcase>",
            c.not_kept
        );
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

pub fn github(c: &Collected) -> String {
    let mut out = String::new();
    for r in c.sorted() {
        if r.verdict == RunVerdict::Error {
            out.push_str(&github::annotation(
                Status::Fail,
                None,
                None,
                "vouch: run not verifiable",
                &format!("{}: {}", r.path, r.error.as_deref().unwrap_or("")),
            ));
            continue;
        }
        for (s, id, m) in bad_checks(r) {
            out.push_str(&github::annotation(
                s,
                None,
                None,
                &format!("vouch {id}"),
                &format!("{}: {m}", r.path),
            ));
        }
    }
    let errors = c.kept.len() - rejected(c);
    let _ = writeln!(
        out,
        "vouch audit: {}: {} accept, {} reject, {errors} could not be verified{}",
        vouch_core::report::plural(c.total() as usize, "run", "runs"),
        c.accepted,
        rejected(c),
        if c.not_kept > 0 {
            format!(", {} more not accepted (not listed)", c.not_kept)
        } else {
            String::new()
        }
    );
    out
}

pub fn sarif(c: &Collected) -> String {
    let mut results = Vec::new();
    let mut unverifiable = Vec::new();
    for r in c.sorted() {
        if r.verdict == RunVerdict::Error {
            unverifiable.push(json!({
                "level": "error",
                "message": { "text": format!("{}: {}", r.path, r.error.as_deref().unwrap_or("")) },
            }));
            continue;
        }
        for (s, id, m) in bad_checks(r) {
            let mut p = Map::new();
            p.insert("run_id".into(), json!(r.run_id));
            if let Some(l) = &r.label {
                p.insert("label".into(), json!(l));
            }
            results.push(sarif::result(id, s, m, Some(&r.path), None, p));
        }
    }
    let properties = json!({
        "runs": c.total(),
        "accept": c.accepted,
        "reject": rejected(c),
        "not_verifiable": unverifiable.len(),
        "not_listed": c.not_kept,
    });
    let mut doc = sarif::document(results, properties);
    doc["runs"][0]["invocations"] = json!([{
        "executionSuccessful": true,
        "toolExecutionNotifications": unverifiable,
    }]);
    sarif::text(&doc)
}
