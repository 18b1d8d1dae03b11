//! `vouch verify --format html`: one self-contained page for one bundle.

use super::{escape, Page};
use crate::bundle::Bundle;
use crate::report::Report;
use crate::source::Statements;
use crate::spec::Spec;

/// The HTML report of `report`, which `verify` produced from `bundle` against `stmts` under
/// `spec` (the bundle's artifacts are read again to show them).
pub fn render(spec: &Spec, stmts: &Statements, bundle: &Bundle, report: &Report) -> String {
    let _ = (spec, stmts, bundle);
    let verdict = report.verdict();
    let word = match verdict {
        crate::report::Verdict::Accept => "accept",
        crate::report::Verdict::Reject => "reject",
    };
    let mut page = Page::new(&format!("vouch: {word} — {}", report.bundle));
    page.push(&format!(
        "<div class=\"verdict {word}\" id=\"verdict\"><span class=\"word\">{word}</span><span>{}</span></div>\n",
        escape(&report.bundle)
    ));
    page.finish()
}
