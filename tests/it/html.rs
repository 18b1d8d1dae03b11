//! `verify --format html`: the page shows what vouch found where it found it, and nothing from
//! the bundle can run or fetch anything in it.

use crate::support::*;
use vouch::bundle::Bundle;
use vouch::source::Statements;

fn page(files: Vec<(String, Vec<u8>)>) -> String {
    let spec = spec();
    let source = northstar_source_text();
    let name = "northstar_cloud_financial_statements.csv";
    let stmts = Statements::read_bytes(name, name, source.as_bytes(), &spec).unwrap();
    let bundle = Bundle::from_files("memory", files, &spec);
    let report = vouch::verify::verify(&spec, &stmts, &bundle);
    vouch::report::html::verify::render(&spec, &stmts, &bundle, &report)
}

fn defect_files(defect: &str) -> Vec<(String, Vec<u8>)> {
    let mut files = northstar_files();
    for (name, bytes) in read_dir_files(&root().join("fixtures/defects").join(defect)) {
        if !matches!(name.as_str(), "expect.txt" | "report.txt" | "README.md") {
            files = with_file(files, &name, bytes);
        }
    }
    files
}

/// The overlay's marks as (year, status), in document order.
fn marks(html: &str) -> Vec<(i32, String)> {
    html.match_indices("<circle class=\"mark\" data-year=\"")
        .map(|(at, m)| {
            let rest = &html[at + m.len()..];
            let year: i32 = rest[..4].parse().unwrap();
            let status = rest.split("data-status=\"").nth(1).unwrap();
            (year, status[..status.find('"').unwrap()].to_string())
        })
        .collect()
}

/// The chart image's bytes, decoded from its `data:` URL.
fn chart_image(html: &str) -> String {
    let at = html
        .find("src=\"data:image/svg+xml;base64,")
        .expect("a chart image");
    let rest = &html[at + "src=\"data:image/svg+xml;base64,".len()..];
    let b64 = &rest[..rest.find('"').unwrap()];
    let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut bits = 0u32;
    let mut n = 0;
    let mut out = Vec::new();
    for c in b64.chars().filter(|&c| c != '=') {
        bits = (bits << 6) | alphabet.find(c).unwrap() as u32;
        n += 6;
        if n >= 8 {
            n -= 8;
            out.push((bits >> n) as u8);
            bits &= (1 << n) - 1;
        }
    }
    String::from_utf8(out).unwrap()
}

#[test]
fn the_northstar_page_accepts_and_shows_every_plotted_value_verified() {
    let html = page(northstar_files());
    assert!(html.contains("id=\"verdict\" data-verdict=\"accept\""));
    for id in [
        "coverage",
        "findings",
        "chart",
        "memo",
        "metrics",
        "movements",
        "checks",
    ] {
        assert!(html.contains(&format!("<section id=\"{id}\">")), "no #{id}");
    }
    let marks = marks(&html);
    assert_eq!(marks.len(), 20, "four panels of five years");
    assert!(marks.iter().all(|m| m.1 == "verified"), "{marks:?}");
    assert!(!html.contains("class=\"fail\""));
    // The chart is an image of a copy, never live SVG: the only inline <svg> are vouch's own.
    assert!(chart_image(&html).starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(!html.contains("<script"));
}

#[test]
fn a_bar_drawn_too_tall_is_the_one_mark_shown_misstated_with_where_it_belongs() {
    let html = page(defect_files("svg.fidelity-bar-too-tall"));
    assert!(html.contains("data-verdict=\"reject\""));
    let failing: Vec<_> = marks(&html).into_iter().filter(|m| m.1 == "fail").collect();
    assert_eq!(failing, vec![(2023, "fail".to_string())]);
    assert_eq!(html.matches("class=\"expected-level\"").count(), 1);
    assert!(html.contains("data-check=\"svg.fidelity\""));
}

#[test]
fn a_contradicted_memo_number_and_a_wrong_metric_cell_are_marked_in_place() {
    let html = page(defect_files("memo.contradicted_number"));
    assert!(
        html.contains("<mark class=\"fail\""),
        "no contradicted number marked"
    );
    let html = page(defect_files("metrics.value"));
    let metrics = &html[html.find("<section id=\"metrics\">").unwrap()..];
    let metrics = &metrics[..metrics.find("</section>").unwrap()];
    assert_eq!(
        metrics
            .matches("class=\"fail\" title=\"metrics.value: ")
            .count(),
        1,
        "one failing metrics cell"
    );
    // Unverified memo numbers are marked too, and counted.
    assert!(html.contains("<mark class=\"unverified\""));
}

#[test]
fn nothing_from_a_hostile_bundle_can_run_or_fetch_in_the_page() {
    let svg = northstar_text("financial_trends.svg").replacen(
        "</svg>",
        "<script>alert(1)</script><image href=\"https://evil.example/t.png\"/><foreignObject><iframe src=\"https://evil.example\"/></foreignObject><rect onload=\"alert(2)\" width=\"1\" height=\"1\"/></svg>",
        1,
    );
    let memo = northstar_text("investment_analysis.md")
        + "\n<script>alert(3)</script> <img src=x onerror=alert(4)> \u{1b}[2J\n";
    let metrics = northstar_text("calculated_metrics.csv").replacen(
        "fiscal_year",
        "fiscal_year<script>alert(5)</script>",
        1,
    );
    let files = with_file(
        with_file(
            with_file(northstar_files(), "financial_trends.svg", svg.into_bytes()),
            "investment_analysis.md",
            memo.into_bytes(),
        ),
        "calculated_metrics.csv",
        metrics.into_bytes(),
    );
    let html = page(files);
    assert!(!html.contains("<script"), "a live script tag");
    assert!(!html.contains("<img src=x"), "live bundle markup");
    assert!(html.contains("&lt;script&gt;alert(3)&lt;/script&gt;"));
    assert!(
        html.contains("\\u{1b}[2J"),
        "a terminal escape shown, not passed through"
    );
    assert!(
        !html.contains("evil.example\""),
        "an outside reference in an attribute"
    );
    let image = chart_image(&html);
    for gone in [
        "script",
        "alert",
        "evil.example",
        "foreignObject",
        "iframe",
        "onload",
    ] {
        assert!(!image.contains(gone), "the chart copy keeps {gone}");
    }
    // Every fetch is forbidden by the page itself.
    assert!(html.contains("default-src 'none'"));
}

#[test]
fn the_cli_writes_the_page_and_exits_with_the_verdict() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vouch"))
        .args(["verify", "--format", "html"])
        .arg(northstar_bundle_dir())
        .arg("--source")
        .arg(northstar_source_path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let html = String::from_utf8(out.stdout).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.ends_with("</html>\n"));
}
