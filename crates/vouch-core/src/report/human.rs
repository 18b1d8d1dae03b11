//! The human report: one compiler-style line per failing or warning check, details indented
//! below, then a summary line. Colour only when asked (the CLI decides: terminal and no NO_COLOR).

use super::CheckId;
use super::{plural, Finding, Report, Status, Verdict};
use std::fmt::Write;

#[derive(Default)]
pub struct Style {
    pub color: bool,
    /// Also list info findings.
    pub verbose: bool,
    /// List at most this many findings (after grouping); the rest are counted.
    pub max_findings: Option<usize>,
}

/// Findings of one check with the same status, message and artifact: one entry, listed once
/// with every place it was found (a check that fires the same way on many rows is read once).
struct Group<'a> {
    first: &'a Finding,
    places: Vec<String>,
}

fn group<'a>(findings: impl Iterator<Item = &'a Finding>) -> Vec<Group<'a>> {
    let mut groups: Vec<Group<'a>> = Vec::new();
    let mut index: std::collections::HashMap<(CheckId, Status, &str, Option<&str>), usize> =
        Default::default();
    for f in findings {
        // A finding on a printed number is its own entry: its numbers differ.
        let key = (f.id, f.status, f.message.as_str(), f.artifact.as_deref());
        match index.get(&key) {
            Some(&i) if f.number.is_none() && groups[i].first.number.is_none() => {
                groups[i].places.push(f.location.to_string())
            }
            _ => {
                index.insert(key, groups.len());
                groups.push(Group {
                    first: f,
                    places: vec![f.location.to_string()],
                });
            }
        }
    }
    groups
}

fn paint(s: &str, code: &str, on: bool) -> String {
    if on {
        format!("\x1b[{code}m{s}\x1b[0m")
    } else {
        s.to_string()
    }
}

pub fn render(report: &Report, style: &Style) -> String {
    let mut out = String::new();
    let mut shown: Vec<&Finding> = report
        .findings
        .iter()
        .filter(|f| f.status >= Status::Warn || (style.verbose && f.status == Status::Info))
        .collect();
    shown.sort_by_key(|f| std::cmp::Reverse(f.status));
    let groups = group(shown.into_iter());
    let limit = style.max_findings.unwrap_or(usize::MAX);
    let hidden = groups.len().saturating_sub(limit);
    for g in groups.iter().take(limit) {
        let f = g.first;
        out.push_str(&finding_head(f, style.color));
        if g.places.len() > 1 {
            let more = &g.places[1..];
            let named: Vec<&str> = more
                .iter()
                .filter(|p| !p.is_empty())
                .take(5)
                .map(String::as_str)
                .collect();
            let listed = if named.is_empty() {
                String::new()
            } else {
                let rest = if more.len() > named.len() {
                    "; …"
                } else {
                    ""
                };
                format!(": {}{rest}", named.join("; "))
            };
            let _ = writeln!(
                out,
                "   = and {}{listed}",
                plural(more.len(), "more time", "more times"),
            );
        }
        out.push_str(&finding_numbers(f));
    }
    if hidden > 0 {
        let _ = writeln!(
            out,
            "{}: {} not listed (--max-findings {limit})",
            paint("note", "1;35", style.color),
            plural(hidden, "more finding", "more findings"),
        );
    }
    if report.source_faulty() {
        let _ = writeln!(
            out,
            "{}: the source data itself is faulty ({}); the bundle cannot be vouched for until the source is fixed — this is not the agent's error",
            paint("note", "1;35", style.color),
            report.source
        );
    }
    let not_checked = report.families_not_checked();
    if !not_checked.is_empty() {
        let names: Vec<&str> = not_checked.iter().map(|f| f.as_str()).collect();
        let _ = writeln!(
            out,
            "{}: not checked: {}{}",
            paint("note", "1;35", style.color),
            names.join(", "),
            if report.source_faulty() {
                " (they need a valid source)"
            } else {
                ""
            }
        );
    }
    // §9: how much of each artifact's figures was traced, one line each.
    for (artifact, c) in &report.coverage {
        if c.total() == 0 {
            continue;
        }
        // A chart's figures are its plotted marks; every other artifact's, its printed numbers.
        let what = if artifact.ends_with(".svg") {
            "plotted values"
        } else {
            "numbers"
        };
        let _ = writeln!(
            out,
            "{}: {artifact}: {} of {} {what} traced to the source, {} contradicted, {} unverified",
            paint("coverage", "1;36", style.color),
            c.verified,
            c.total(),
            c.contradicted,
            c.unverified
        );
    }
    let summary = report.check_summary();
    let failed = summary.iter().filter(|(_, s)| *s == Status::Fail).count();
    let warned = summary.iter().filter(|(_, s)| *s == Status::Warn).count();
    let passed = summary
        .iter()
        .filter(|(_, s)| matches!(s, Status::Pass | Status::Info))
        .count();
    let skipped = summary
        .iter()
        .filter(|(_, s)| *s == Status::Skipped)
        .count();
    // Why checks were skipped, one line per reason (families the source kept from running are
    // named above; `--reexecute` not asked is said only with --verbose).
    let reasons = report.skip_groups(&summary, style.verbose);
    for (reason, ids) in reasons {
        let what = super::name_checks(&ids);
        let _ = writeln!(
            out,
            "{}: skipped {what}: {reason}",
            paint("note", "1;35", style.color),
        );
    }
    let verdict = match report.verdict() {
        Verdict::Accept => paint("accept", "1;32", style.color),
        Verdict::Reject => paint("reject", "1;31", style.color),
    };
    let _ = writeln!(
        out,
        "{verdict}: {} — {} failed, {warned} warned, {passed} passed, {skipped} skipped ({}, {}, {})",
        report.bundle,
        plural(failed, "check", "checks"),
        plural(report.count(Status::Fail), "error", "errors"),
        plural(report.count(Status::Warn), "warning", "warnings"),
        plural(report.count(Status::Info), "info finding", "info findings"),
    );
    out
}

/// The first line of a finding: `error[id]: artifact: place: message`.
pub fn finding_head(f: &Finding, color: bool) -> String {
    let mut out = String::new();
    let (label, code) = match f.status {
        Status::Fail => ("error", "1;31"),
        Status::Warn => ("warning", "1;33"),
        _ => ("info", "1;36"),
    };
    let _ = write!(out, "{}[{}]: ", paint(label, code, color), f.id);
    let mut place = f.artifact.clone().unwrap_or_default();
    let loc = f.location.to_string();
    if !loc.is_empty() {
        if !place.is_empty() {
            place.push_str(": ");
        }
        place.push_str(&loc);
    }
    if !place.is_empty() {
        let _ = write!(out, "{}: ", paint(&place, "1", color));
    }
    let _ = writeln!(out, "{}", f.message);
    out
}

/// The lines under a finding that give its numbers (printed, interval, recomputed, k, formula).
pub fn finding_numbers(f: &Finding) -> String {
    let mut out = String::new();
    if let Some(n) = &f.number {
        let parts = n.parts("", true, true);
        let _ = writeln!(out, "   = {}", parts.join(", "));
        if let Some(fm) = &n.formula {
            let variant = n
                .variant
                .as_deref()
                .map(|v| format!(" (variant {v})"))
                .unwrap_or_default();
            let _ = writeln!(out, "   = formula: {fm}{variant}");
        }
    }
    out
}
