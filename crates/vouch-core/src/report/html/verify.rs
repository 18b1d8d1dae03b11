//! `vouch verify --format html`: one self-contained page for one bundle. The verdict and the
//! coverage first; then the findings by family, with their numbers; the chart with vouch's
//! reading drawn over it; the memo and the tables with what vouch found marked in place; and
//! every check's outcome.

use super::{artifacts, chart, escape, Page};
use crate::bundle::Bundle;
use crate::report::{Family, Finding, Report, Status, Verdict};
use crate::source::Statements;
use crate::spec::Spec;
use std::fmt::Write as _;

/// The HTML report of `report`, which `verify` produced from `bundle` against `stmts` under
/// `spec` (the bundle's artifacts are read again to show them, and the chart's reading is
/// rebuilt by the same pass that judged it).
pub fn render(spec: &Spec, stmts: &Statements, bundle: &Bundle, report: &Report) -> String {
    let verdict = report.verdict();
    let word = match verdict {
        Verdict::Accept => "accept",
        Verdict::Reject => "reject",
    };
    let mut page = Page::new(&format!("vouch: {word} — {}", report.bundle));
    page.push(&header(report, word));
    page.push(&coverage(report));
    page.push(&findings(report));
    let names = &spec.artifacts;
    let text = |name: &str| bundle.get(name).and_then(|a| a.text().ok());
    let of = |name: &str| -> Vec<&Finding> {
        report
            .findings
            .iter()
            .filter(|f| f.artifact.as_deref() == Some(name))
            .collect()
    };
    let view = crate::verify::chart_view(spec, stmts, bundle);
    page.push(&chart::section(
        &names.chart,
        text(&names.chart),
        view.as_ref(),
    ));
    page.push(&artifacts::memo(
        &names.memo,
        text(&names.memo),
        &of(&names.memo),
    ));
    page.push(&artifacts::table(
        "metrics",
        "Calculated metrics",
        &names.metrics,
        bundle.get(&names.metrics).map(|a| a.bytes.as_slice()),
        &of(&names.metrics),
    ));
    page.push(&artifacts::table(
        "movements",
        "Unusual movements",
        &names.movements,
        bundle.get(&names.movements).map(|a| a.bytes.as_slice()),
        &of(&names.movements),
    ));
    page.push(&checks(report));
    page.push(&format!(
        "<footer class=\"muted\"><p>vouch {} · spec <code>{}</code> · no script, no network: this page fetches nothing.</p></footer>\n",
        env!("CARGO_PKG_VERSION"),
        escape(&report.spec)
    ));
    page.finish()
}

fn header(report: &Report, word: &str) -> String {
    let mut out = String::new();
    let (fail, warn, info) = (
        report.count(Status::Fail),
        report.count(Status::Warn),
        report.count(Status::Info),
    );
    let _ = writeln!(out, "<h1>vouch report</h1>");
    let _ = writeln!(
        out,
        "<div class=\"verdict {word}\" id=\"verdict\" data-verdict=\"{word}\"><span class=\"word\">{word}</span><span>{}</span></div>",
        if report.source_faulty() {
            "the source itself is faulty: nothing could be recomputed from it".to_string()
        } else {
            format!(
                "{fail} failing finding{}, {warn} warning{}, {info} info",
                if fail == 1 { "" } else { "s" },
                if warn == 1 { "" } else { "s" }
            )
        }
    );
    out.push_str("<table class=\"meta\">");
    let _ = write!(
        out,
        "<tr><th>bundle</th><td><code>{}</code></td></tr><tr><th>source</th><td><code>{}</code> <span class=\"muted mono\">sha256 {}</span></td></tr>",
        escape(&report.bundle),
        escape(&report.source),
        escape(&report.source_sha256)
    );
    let checked: Vec<&str> = report.families_checked.iter().map(|f| f.as_str()).collect();
    let _ = write!(
        out,
        "<tr><th>families checked</th><td>{}</td></tr>",
        escape(&checked.join(", "))
    );
    let not: Vec<&str> = report
        .families_not_checked()
        .iter()
        .map(|f| f.as_str())
        .collect();
    if !not.is_empty() {
        let _ = write!(
            out,
            "<tr><th>not checked</th><td>{}</td></tr>",
            escape(&not.join(", "))
        );
    }
    out.push_str("</table>\n<nav class=\"toc\"><a href=\"#coverage\">coverage</a><a href=\"#findings\">findings</a><a href=\"#chart\">chart</a><a href=\"#memo\">memo</a><a href=\"#metrics\">metrics</a><a href=\"#movements\">movements</a><a href=\"#checks\">checks</a></nav>\n");
    out
}

fn coverage(report: &Report) -> String {
    let mut out = String::from(
        "<section id=\"coverage\">\n<h2>Coverage</h2>\n<p class=\"muted\">Claims vouch traced to the source: verified, contradicted, or unverified (not tied with certainty; counted, never a failure).</p>\n<table class=\"coverage\"><thead><tr><th>artifact</th><th>verified</th><th>contradicted</th><th>unverified</th><th>total</th></tr></thead><tbody>\n",
    );
    let mut all = crate::report::Coverage::default();
    for (name, c) in &report.coverage {
        all.add(*c);
        let _ = writeln!(
            out,
            "<tr><td><code>{}</code></td><td class=\"num\">{}</td><td class=\"num{}\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            escape(name),
            c.verified,
            if c.contradicted > 0 { " fail" } else { "" },
            c.contradicted,
            c.unverified,
            c.total()
        );
    }
    let _ = writeln!(
        out,
        "<tr><th>all</th><th class=\"num\">{}</th><th class=\"num\">{}</th><th class=\"num\">{}</th><th class=\"num\">{}</th></tr>\n</tbody></table>\n</section>",
        all.verified,
        all.contradicted,
        all.unverified,
        all.total()
    );
    out
}

fn findings(report: &Report) -> String {
    let mut out = String::from("<section id=\"findings\">\n<h2>Findings</h2>\n");
    if report.findings.is_empty() {
        out.push_str("<p>No findings.</p>\n");
    }
    for family in Family::ALL {
        let of: Vec<&Finding> = report
            .findings
            .iter()
            .filter(|f| f.id.family() == family)
            .collect();
        if of.is_empty() {
            continue;
        }
        let count = |s: Status| of.iter().filter(|f| f.status == s).count();
        let _ = writeln!(
            out,
            "<h3 id=\"family-{0}\">{0} <span class=\"muted\">({1} fail, {2} warn, {3} info)</span></h3>",
            family.as_str(),
            count(Status::Fail),
            count(Status::Warn),
            count(Status::Info)
        );
        for f in of.iter().filter(|f| f.status >= Status::Warn) {
            out.push_str(&finding(f));
        }
        let infos: Vec<&&Finding> = of.iter().filter(|f| f.status < Status::Warn).collect();
        if !infos.is_empty() {
            let _ = writeln!(
                out,
                "<details><summary>{} info finding{}</summary>",
                infos.len(),
                if infos.len() == 1 { "" } else { "s" }
            );
            for f in infos {
                out.push_str(&finding(f));
            }
            out.push_str("</details>\n");
        }
    }
    out.push_str("</section>\n");
    out
}

fn finding(f: &Finding) -> String {
    let status = f.status.as_str();
    let mut out = format!(
        "<div class=\"finding {status}\" data-check=\"{}\"><span class=\"badge {status}\">{status}</span> <code>{}</code>",
        escape(f.id.as_str()),
        escape(f.id.as_str())
    );
    let mut place = Vec::new();
    if let Some(a) = &f.artifact {
        place.push(format!("<code>{}</code>", escape(a)));
    }
    if !f.location.is_empty() {
        place.push(escape(&f.location.to_string()));
    }
    if !place.is_empty() {
        let _ = write!(out, " <span class=\"where\">{}</span>", place.join(" · "));
    }
    let _ = write!(out, "<div class=\"message\">{}</div>", escape(&f.message));
    if let Some(n) = &f.number {
        out.push_str("<dl>");
        let rows = [
            ("printed", (!n.printed.is_empty()).then_some(&n.printed)),
            ("interval", n.interval.as_ref()),
            ("recomputed", n.recomputed.as_ref()),
            ("k", n.k.as_ref()),
            ("formula", n.formula.as_ref()),
            ("variant", n.variant.as_ref()),
            ("scale", n.scale.as_ref()),
        ];
        for (k, v) in rows {
            if let Some(v) = v {
                let _ = write!(out, "<dt>{k}</dt><dd><code>{}</code></dd>", escape(v));
            }
        }
        out.push_str("</dl>");
    }
    out.push_str("</div>\n");
    out
}

fn checks(report: &Report) -> String {
    let mut out = String::from(
        "<section id=\"checks\">\n<h2>Checks</h2>\n<details><summary>Every check and its outcome (pass only for a check that ran)</summary>\n<table><thead><tr><th>check</th><th>outcome</th><th>what it checks</th></tr></thead><tbody>\n",
    );
    for (def, status) in report.check_summary() {
        let reason = (status == Status::Skipped)
            .then(|| report.skip_reason(def))
            .flatten()
            .map(|r| format!(" <span class=\"muted\">({})</span>", escape(&r)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "<tr><td><code>{}</code></td><td><span class=\"badge {}\">{}</span>{reason}</td><td>{}</td></tr>",
            escape(def.id.as_str()),
            status.as_str(),
            status.as_str(),
            escape(def.meaning)
        );
    }
    out.push_str("</tbody></table>\n</details>\n</section>\n");
    out
}
