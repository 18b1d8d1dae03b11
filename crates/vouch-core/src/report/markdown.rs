//! A PR-comment-ready summary: the verdict, a table of failing and warning checks, and the
//! details of every finding collapsed under `<details>`.

use super::{plural, Report, Status, Verdict};
use std::fmt::Write;

fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

pub fn render(report: &Report) -> String {
    let mut out = String::new();
    let (icon, word) = match report.verdict() {
        Verdict::Accept => ("✅", "accept"),
        Verdict::Reject => ("❌", "reject"),
    };
    let _ = writeln!(
        out,
        "### {icon} vouch: **{word}** — `{}`\n\n{}, {}, {} · spec {} · source `{}` (sha256 `{}`)\n",
        report.bundle,
        plural(report.count(Status::Fail), "error", "errors"),
        plural(report.count(Status::Warn), "warning", "warnings"),
        plural(report.count(Status::Info), "info finding", "info findings"),
        report.spec,
        report.source,
        &report.source_sha256[..12.min(report.source_sha256.len())],
    );
    if report.source_faulty() {
        out.push_str(
            "> **The source data itself is faulty** — fix the source before judging the agent.\n\n",
        );
    }
    // §9: how much of each artifact's figures was traced.
    let traced: Vec<_> = report
        .coverage
        .iter()
        .filter(|(_, c)| c.total() > 0)
        .collect();
    if !traced.is_empty() {
        out.push_str("| artifact | traced | contradicted | unverified |\n|---|---:|---:|---:|\n");
        for (artifact, c) in traced {
            let _ = writeln!(
                out,
                "| `{}` | {} of {} | {} | {} |",
                cell(artifact),
                c.verified,
                c.total(),
                c.contradicted,
                c.unverified
            );
        }
        out.push('\n');
    }
    let summary = report.check_summary();
    let bad: Vec<_> = summary.iter().filter(|(_, s)| *s >= Status::Warn).collect();
    let skipped: Vec<_> = summary
        .iter()
        .filter(|(_, s)| *s == Status::Skipped)
        .collect();
    if bad.is_empty() {
        let _ = writeln!(
            out,
            "All {} checks that ran passed{}.\n",
            summary.len() - skipped.len(),
            if skipped.is_empty() {
                String::new()
            } else {
                format!(" ({} skipped)", skipped.len())
            }
        );
    } else {
        out.push_str("| check | status | findings | first finding |\n|---|---|---:|---|\n");
        for (def, status) in bad {
            let of: Vec<_> = report
                .findings
                .iter()
                .filter(|f| f.id == def.id && f.status == *status)
                .collect();
            let first = of.first().map(|f| {
                let loc = f.location.to_string();
                let place = [f.artifact.clone().unwrap_or_default(), loc]
                    .iter()
                    .filter(|s| !s.is_empty())
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(" ");
                format!("{place}: {}", f.message)
            });
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {} |",
                def.id,
                status.as_str(),
                of.len(),
                cell(&first.unwrap_or_default())
            );
        }
        out.push('\n');
    }
    let not_checked = report.families_not_checked();
    if !not_checked.is_empty() {
        let names: Vec<&str> = not_checked.iter().map(|f| f.as_str()).collect();
        let _ = writeln!(out, "Not checked: {}.\n", names.join(", "));
    }
    let reasons = report.skip_groups(&summary, true);
    for (reason, ids) in reasons {
        let ids: Vec<String> = ids.iter().map(|i| format!("`{i}`")).collect();
        let _ = writeln!(out, "Skipped ({}): {}.\n", cell(&reason), ids.join(", "));
    }
    let details: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.status >= Status::Info)
        .collect();
    if !details.is_empty() {
        out.push_str("<details><summary>All findings</summary>\n\n");
        for f in details {
            let _ = write!(out, "- **{}** `{}`", f.status.as_str(), f.id);
            if let Some(a) = &f.artifact {
                let _ = write!(out, " · `{a}`");
            }
            let loc = f.location.to_string();
            if !loc.is_empty() {
                let _ = write!(out, " · {loc}");
            }
            let _ = write!(out, ": {}", f.message);
            if let Some(n) = &f.number {
                let mut parts = n.parts("`", true, false);
                if let Some(fm) = &n.formula {
                    parts.push(format!("formula `{fm}`"));
                }
                let _ = write!(out, " ({})", parts.join(", "));
            }
            out.push('\n');
        }
        out.push_str("\n</details>\n");
    }
    let _ = writeln!(
        out,
        "\n<sub>artifacts: {}</sub>",
        report
            .artifacts
            .iter()
            .map(|a| format!("`{}` {}", a.name, &a.sha256[..12]))
            .collect::<Vec<_>>()
            .join(" · ")
    );
    out
}
