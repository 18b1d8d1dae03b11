//! GitHub Actions workflow commands: one `::error` / `::warning` (and with `verbose`, `::notice`)
//! annotation per finding, on the artifact's file and line, then the verdict as a plain line.
//! Values are escaped as the runner expects (`%`, CR and LF in messages; also `:` and `,` in
//! properties), so bundle text cannot end an annotation or start a command of its own.

use super::{plural, Finding, Report, Status, Verdict};
use std::fmt::Write;

/// A message (the text after `::`).
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A property value (`file=`, `title=`).
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// The text of one finding: its message, then the numbers behind it.
pub fn finding_text(f: &Finding) -> String {
    let mut text = f.message.clone();
    if let Some(n) = &f.number {
        let parts = n.parts("", false, false);
        if !parts.is_empty() {
            let _ = write!(text, " ({})", parts.join(", "));
        }
    }
    let loc = f.location.to_string();
    if !loc.is_empty() && f.location.line.is_none() {
        let _ = write!(text, " [{loc}]");
    }
    text
}

/// One workflow command; `file` is where the annotation is shown.
pub fn annotation(
    level: Status,
    file: Option<&str>,
    line: Option<usize>,
    title: &str,
    text: &str,
) -> String {
    let command = match level {
        Status::Fail => "error",
        Status::Warn => "warning",
        _ => "notice",
    };
    let mut props = Vec::new();
    if let Some(f) = file {
        props.push(format!("file={}", escape_property(f)));
        if let Some(l) = line {
            props.push(format!("line={l}"));
        }
    }
    props.push(format!("title={}", escape_property(title)));
    format!("::{command} {}::{}\n", props.join(","), escape_data(text))
}

pub fn render(report: &Report, verbose: bool) -> String {
    let mut out = String::new();
    for f in &report.findings {
        if f.status < Status::Warn && !(verbose && f.status == Status::Info) {
            continue;
        }
        let file = f
            .artifact
            .as_ref()
            .map(|a| format!("{}/{a}", report.bundle.trim_end_matches('/')));
        out.push_str(&annotation(
            f.status,
            file.as_deref(),
            f.location.line,
            &format!("vouch {}", f.id),
            &finding_text(f),
        ));
    }
    let summary = report.check_summary();
    // Checks that did not run, one notice per reason: skipped is never passed silently.
    for (reason, ids) in report.skip_groups(&summary, verbose) {
        let what = super::name_checks(&ids);
        out.push_str(&annotation(
            Status::Info,
            None,
            None,
            "vouch: checks skipped",
            &format!("{}: skipped {what}: {reason}", report.bundle),
        ));
    }
    let with = |s: Status| summary.iter().filter(|(_, w)| *w == s).count();
    let word = match report.verdict() {
        Verdict::Accept => "accept",
        Verdict::Reject => "reject",
    };
    let _ = writeln!(
        out,
        "vouch: {word}: {} — {} failed, {} warned, {} passed, {} skipped",
        report.bundle,
        plural(with(Status::Fail), "check", "checks"),
        with(Status::Warn),
        with(Status::Pass) + with(Status::Info),
        with(Status::Skipped),
    );
    out
}
