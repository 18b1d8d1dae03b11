//! `svg.*`: chart structure fixtures in `fixtures/svg/` must pass against the Northstar source;
//! each rule's failing fixture lives in `fixtures/defects/svg.*`.

use crate::support::*;
use vouch::report::{Report, Status};

fn chart_report(svg: &str) -> Report {
    verify_northstar(with_file(
        northstar_files(),
        "financial_trends.svg",
        svg.as_bytes().to_vec(),
    ))
}

fn svg_problems(report: &Report) -> Vec<String> {
    report
        .findings
        .iter()
        .filter(|f| f.id.starts_with("svg.") && f.status >= Status::Warn)
        .map(|f| format!("{} {} {:?} {}", f.status.as_str(), f.id, f.location, f.message))
        .collect()
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(root().join("fixtures/svg").join(name)).unwrap()
}

fn assert_clean(svg: &str) {
    let report = chart_report(svg);
    let problems = svg_problems(&report);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_northstar_chart_passes_every_svg_check() {
    assert_clean(&northstar_text("financial_trends.svg"));
}

#[test]
fn a_matplotlib_two_by_two_chart_passes() {
    let report = chart_report(&fixture("matplotlib_2x2.svg"));
    assert!(svg_problems(&report).is_empty(), "{}", svg_problems(&report).join("\n"));
    assert!(has(&report, "svg.doctype", Status::Info));
}

/// The panels found in a chart: (title, series kind read back, whether a zero baseline was found).
fn panels_of(svg: &str) -> Vec<(String, Option<(SeriesKind, usize, bool)>)> {
    let doc = parse::parse(svg).unwrap();
    let canvas = scene::canvas(doc.root()).unwrap();
    let scene = scene::build(&doc, &canvas, 16.0, 0.6);
    let roles = panels::roles(&scene, 0.5);
    let found = panels::detect(&scene, &roles, 0.5);
    found
        .panels
        .iter()
        .map(|p| {
            let r = fidelity::read(&scene, &roles, p, 0.5);
            (
                scene.texts[p.title].content.clone(),
                r.map(|r| (r.kind, r.marks.len(), r.baseline.is_some())),
            )
        })
        .collect()
}

use vouch::checks::svg::fidelity::SeriesKind;
use vouch::checks::svg::{fidelity, panels, parse, scene};

#[test]
fn reads_back_every_northstar_panel_from_zero() {
    let got = panels_of(&northstar_text("financial_trends.svg"));
    assert_eq!(
        got,
        [
            ("Revenue".to_string(), Some((SeriesKind::Bars, 5, true))),
            ("Operating margin".to_string(), Some((SeriesKind::Line, 5, true))),
            ("Free cash flow".to_string(), Some((SeriesKind::Bars, 5, true))),
            ("Net margin".to_string(), Some((SeriesKind::Line, 5, true))),
        ]
    );
}

#[test]
fn reads_back_every_matplotlib_panel_from_zero() {
    let got = panels_of(&fixture("matplotlib_2x2.svg"));
    assert_eq!(
        got,
        [
            ("Revenue ($m)".to_string(), Some((SeriesKind::Bars, 5, true))),
            ("Operating margin (%)".to_string(), Some((SeriesKind::Line, 5, true))),
            ("Free cash flow ($m)".to_string(), Some((SeriesKind::Bars, 5, true))),
            ("Net margin (%)".to_string(), Some((SeriesKind::Line, 5, true))),
        ]
    );
}

/// Each `svg.*` defect fixture fails only the svg checks it names (no collateral svg findings),
/// so a rule's fixture pins that rule.
#[test]
fn svg_defect_fixtures_fail_only_what_they_expect() {
    let dir = root().join("fixtures/defects");
    let mut problems = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("svg."))
        .collect();
    names.sort();
    for name in names {
        let expect = std::fs::read_to_string(dir.join(&name).join("expect.txt")).unwrap();
        let bytes = std::fs::read(dir.join(&name).join("financial_trends.svg")).unwrap();
        let report = verify_northstar(with_file(northstar_files(), "financial_trends.svg", bytes));
        for f in report
            .findings
            .iter()
            .filter(|f| f.id.starts_with("svg.") && f.status >= Status::Warn)
        {
            let line = format!("{} {}", f.status.as_str(), f.id);
            if !expect.lines().any(|l| l.trim() == line) {
                problems.push(format!("{name}: unexpected {line}: {}", f.message));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
