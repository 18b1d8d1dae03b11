//! `memo.*`: the investment memo against the Northstar statements.

use crate::support::*;
use vouch::report::{Finding, Report, Status};

const MEMO: &str = "investment_analysis.md";

fn memo() -> String {
    northstar_text(MEMO)
}

fn verify_memo(text: &str) -> Report {
    verify_northstar(with_file(northstar_files(), MEMO, text.as_bytes().to_vec()))
}

fn memo_findings(r: &Report) -> Vec<&Finding> {
    r.findings.iter().filter(|f| f.family() == "memo").collect()
}

/// Replace one exact piece of the good memo (it must occur).
fn edited(from: &str, to: &str) -> String {
    let m = memo();
    assert!(m.contains(from), "the good memo contains `{from}`");
    m.replacen(from, to, 1)
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .expect("needle present")
        + 1
}

#[test]
fn the_good_memo_has_no_memo_warnings_or_failures() {
    let r = verify_memo(&memo());
    let bad: Vec<_> = memo_findings(&r)
        .into_iter()
        .filter(|f| f.status >= Status::Warn)
        .collect();
    assert!(bad.is_empty(), "{}", dump(&r));
}
