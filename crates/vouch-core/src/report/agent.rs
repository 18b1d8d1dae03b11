//! The findings for a model to act on (`--format agent`, and the repair prompt of
//! `vouch run --repair`): one line per failing finding — the file, where in it, the check id,
//! what is wrong with the printed and recomputed numbers, and the rule's fix — then one line with
//! the count. Nothing else: no colour, no summary of passing checks, no unverified claims (an
//! agent cannot act on "vouch could not tie this"), so the text is short and every line is a
//! proven defect.
//!
//! Lines are flattened (a message's own line breaks become spaces) so one finding is one line.

use super::{registry, Report, Status};

/// One line per failing finding, then `N failing finding(s).` (or `No failing findings.`).
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    let failing: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.status == Status::Fail)
        .collect();
    for f in &failing {
        let mut place = f.artifact.clone().unwrap_or_else(|| "bundle".into());
        let loc = f.location.to_string();
        if !loc.is_empty() {
            place.push_str(&format!(" ({loc})"));
        }
        let mut line = format!("{place}: [{}] {}", f.id, f.message);
        if let Some(n) = &f.number {
            let parts = n.parts("", false, false);
            if !parts.is_empty() {
                line.push_str(&format!(" ({})", parts.join(", ")));
            }
        }
        if !line.ends_with(['.', '!', '?']) {
            line.push('.');
        }
        line.push_str(&format!(" Fix: {}", registry::def(f.id).fix));
        out.push_str(&flatten(&line));
        out.push('\n');
    }
    if failing.is_empty() {
        out.push_str("No failing findings.\n");
    } else {
        let n = failing.len();
        out.push_str(&format!(
            "{n} failing {}.\n",
            if n == 1 { "finding" } else { "findings" }
        ));
    }
    out
}

/// Control characters (line breaks, escapes a bundle may carry) become spaces.
fn flatten(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{CheckId, Finding, Location, NumberDetail};

    #[test]
    fn one_line_per_failing_finding_with_its_numbers_and_fix() {
        let mut report = Report {
            bundle: "b".into(),
            source: "s.csv".into(),
            source_sha256: String::new(),
            spec: String::new(),
            artifacts: Vec::new(),
            families_checked: Vec::new(),
            findings: Vec::new(),
            coverage: Vec::new(),
            skipped: Vec::new(),
            reexecuted: false,
        };
        let mut f = Finding::fail(CheckId::MetricsValue, "gross margin is wrong\nsee")
            .artifact("calculated_metrics.csv");
        f.location = Location {
            row: Some(3),
            column: Some("value".into()),
            ..Location::default()
        };
        f.number = Some(NumberDetail {
            printed: "0.71".into(),
            recomputed: Some("0.6931".into()),
            ..NumberDetail::default()
        });
        report.findings.push(f);
        report.findings.push(Finding::warn(
            CheckId::MetricsValue,
            "a warning is not for the agent",
        ));
        let text = render(&report);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert!(lines[0].starts_with(
            "calculated_metrics.csv (row 3, column `value`): [metrics.value] gross margin is wrong see (printed 0.71, recomputed 0.6931). Fix: "
        ), "{text}");
        assert_eq!(lines[1], "1 failing finding.");
    }
}
