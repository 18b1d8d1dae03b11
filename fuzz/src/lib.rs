//! Shared setup of the fuzz targets: the Northstar bundle with one artifact replaced by the
//! fuzzer's bytes, verified in process. Each target asserts vouch's promises by running: a panic
//! is a crash, and `-timeout`/`-rss_limit_mb` (set by CI) turn a hang or a blow-up into one.

use std::sync::OnceLock;
use vouch::bundle::Bundle;
use vouch::source::Statements;
use vouch::spec::Spec;

const SOURCE: &[u8] =
    include_bytes!("../../fixtures/northstar/northstar_cloud_financial_statements.csv");
const SOURCE_NAME: &str = "northstar_cloud_financial_statements.csv";

const FILES: [(&str, &[u8]); 6] = [
    (
        "analyze_financials.py",
        include_bytes!("../../fixtures/northstar/bundle/analyze_financials.py"),
    ),
    (
        "calculated_metrics.csv",
        include_bytes!("../../fixtures/northstar/bundle/calculated_metrics.csv"),
    ),
    (
        "unusual_movements.csv",
        include_bytes!("../../fixtures/northstar/bundle/unusual_movements.csv"),
    ),
    (
        "financial_trends.svg",
        include_bytes!("../../fixtures/northstar/bundle/financial_trends.svg"),
    ),
    (
        "investment_analysis.md",
        include_bytes!("../../fixtures/northstar/bundle/investment_analysis.md"),
    ),
    (
        "analysis_run.json",
        include_bytes!("../../fixtures/northstar/bundle/analysis_run.json"),
    ),
];

pub fn spec() -> &'static Spec {
    static SPEC: OnceLock<Spec> = OnceLock::new();
    SPEC.get_or_init(Spec::default_spec)
}

fn statements() -> &'static Statements {
    static STMTS: OnceLock<Statements> = OnceLock::new();
    STMTS.get_or_init(|| {
        Statements::read_bytes(SOURCE_NAME, SOURCE_NAME, SOURCE, spec())
            .expect("the Northstar source reads")
    })
}

/// Verify the Northstar bundle with `name` replaced by `bytes`.
pub fn verify_with(name: &str, bytes: &[u8]) {
    let files: Vec<(String, Vec<u8>)> = FILES
        .iter()
        .map(|(n, b)| {
            let b = if *n == name {
                bytes.to_vec()
            } else {
                b.to_vec()
            };
            (n.to_string(), b)
        })
        .collect();
    let bundle = Bundle::from_files("fuzz", files, spec());
    let report = vouch::verify::verify(spec(), statements(), &bundle);
    // Every report renders in every format.
    let _ = vouch::report::json::render(&report);
    // The HTML page: nothing from the bundle becomes markup, and the chart's copy keeps no
    // element that runs or embeds anything.
    let html = vouch::report::html::verify::render(spec(), statements(), &bundle, &report);
    assert!(!html.contains("<script"), "bundle text became a script tag");
    if let Ok(doc) = vouch::read::svg::parse::parse(&String::from_utf8_lossy(bytes)) {
        if let Some(copy) = vouch::read::svg::sanitise::sanitise(&doc, None) {
            let lower = copy.to_ascii_lowercase();
            for tag in ["<script", "<foreignobject", "<iframe", "<a ", "<set", "<animate"] {
                assert!(!lower.contains(tag), "the chart copy keeps {tag}");
            }
        }
    }
}

/// Verify the Northstar bundle against `bytes` as its source.
pub fn verify_source(bytes: &[u8]) {
    if let Ok(stmts) = Statements::read_bytes(SOURCE_NAME, SOURCE_NAME, bytes, spec()) {
        let files: Vec<(String, Vec<u8>)> = FILES
            .iter()
            .map(|(n, b)| (n.to_string(), b.to_vec()))
            .collect();
        let bundle = Bundle::from_files("fuzz", files, spec());
        let _ = vouch::verify::verify(spec(), &stmts, &bundle);
    }
}
