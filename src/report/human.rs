//! The human report: one compiler-style line per failing or warning check, details indented
//! below, then a summary line. Colour only when asked (the CLI decides: terminal and no NO_COLOR).

use super::{Finding, Report, Status, Verdict};
use std::fmt::Write;

pub struct Style {
    pub color: bool,
    /// Also list info findings.
    pub verbose: bool,
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
    for f in shown {
        let (label, code) = match f.status {
            Status::Fail => ("error", "1;31"),
            Status::Warn => ("warning", "1;33"),
            _ => ("info", "1;36"),
        };
        let _ = write!(out, "{}[{}]: ", paint(label, code, style.color), f.id);
        let mut place = f.artifact.clone().unwrap_or_default();
        let loc = f.location.to_string();
        if !loc.is_empty() {
            if !place.is_empty() {
                place.push_str(": ");
            }
            place.push_str(&loc);
        }
        if !place.is_empty() {
            let _ = write!(out, "{}: ", paint(&place, "1", style.color));
        }
        let _ = writeln!(out, "{}", f.message);
        if let Some(n) = &f.number {
            let mut parts = Vec::new();
            if !n.printed.is_empty() {
                parts.push(format!("printed {}", n.printed));
            }
            if let Some(i) = &n.interval {
                parts.push(format!("interval {i}"));
            }
            if let Some(r) = &n.recomputed {
                parts.push(format!("recomputed {r}"));
            }
            if let Some(k) = &n.k {
                parts.push(format!("k = {k}"));
            }
            if let Some(s) = &n.scale {
                parts.push(format!("scale {s}"));
            }
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
        let what = if ids.len() > 3 {
            format!("{} checks ({}, …)", ids.len(), ids[..2].join(", "))
        } else {
            ids.join(", ")
        };
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
        "{verdict}: {} — {} checks failed, {} warned, {} passed, {} skipped ({} errors, {} warnings, {} info findings)",
        report.bundle,
        failed,
        warned,
        passed,
        skipped,
        report.count(Status::Fail),
        report.count(Status::Warn),
        report.count(Status::Info),
    );
    out
}
