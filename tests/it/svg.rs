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
        .filter(|f| f.id.as_str().starts_with("svg.") && f.status >= Status::Warn)
        .map(|f| {
            format!(
                "{} {} {:?} {}",
                f.status.as_str(),
                f.id.as_str(),
                f.location,
                f.message
            )
        })
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
fn every_chart_structure_fixture_passes_against_the_northstar_source() {
    let mut names: Vec<String> = std::fs::read_dir(root().join("fixtures/svg"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".svg"))
        .collect();
    names.sort();
    assert!(names.len() >= 5, "{names:?}");
    for name in names {
        let svg = fixture(&name);
        let report = chart_report(&svg);
        let problems = svg_problems(&report);
        assert!(problems.is_empty(), "{name}:\n{}", problems.join("\n"));
        let panels = panels_of(&svg);
        assert_eq!(panels.len(), 4, "{name}: {panels:?}");
        for (title, reading) in &panels {
            assert!(
                matches!(reading, Some((_, 5, true))),
                "{name}: panel `{title}` must be read back from zero with five years: {reading:?}"
            );
        }
    }
}

#[test]
fn matplotlib_output_has_a_plain_doctype_which_is_only_info() {
    let report = chart_report(&fixture("matplotlib_2x2.svg"));
    assert!(has(&report, "svg.doctype", Status::Info));
}

#[test]
fn a_view_box_scales_fonts_in_both_directions() {
    // Upscaled 2x: the good chart's 10-16 px fonts render at 20-32 px and pass.
    assert_clean(&fixture("viewbox_upscaled.svg"));
    // Downscaled 2x: the same user sizes render at 5-8 px and fail, though they read >= 8.
    let small = northstar_text("financial_trends.svg").replacen(
        r#"width="960" height="720""#,
        r#"width="480" height="360""#,
        1,
    );
    let report = chart_report(&small);
    let tiny: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.id.as_str() == "svg.font_size")
        .collect();
    assert!(!tiny.is_empty(), "{}", dump(&report));
    assert!(
        tiny.iter()
            .any(|f| f.message.contains("`2021` renders at 6 px")),
        "{}",
        dump(&report)
    );
    // Downscaled with fonts doubled in user units: they render at >= 8 px again.
    assert_clean(&fixture("viewbox_downscaled.svg"));
}

/// A panel's series as read back: kind, marks matched to years, whether zero was found.
type ReadBack = (SeriesKind, usize, bool);

/// The panels found in a chart: (title, series kind read back, whether a zero baseline was found).
fn panels_of(svg: &str) -> Vec<(String, Option<ReadBack>)> {
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

use vouch::checks::svg::fidelity;
use vouch::checks::svg::fidelity::SeriesKind;
use vouch::read::svg::{panels, parse, scene};

#[test]
fn reads_back_every_northstar_panel_from_zero() {
    let got = panels_of(&northstar_text("financial_trends.svg"));
    assert_eq!(
        got,
        [
            ("Revenue".to_string(), Some((SeriesKind::Bars, 5, true))),
            (
                "Operating margin".to_string(),
                Some((SeriesKind::Line, 5, true))
            ),
            (
                "Free cash flow".to_string(),
                Some((SeriesKind::Bars, 5, true))
            ),
            ("Net margin".to_string(), Some((SeriesKind::Line, 5, true))),
        ]
    );
}

#[test]
fn reads_back_the_matplotlib_titles_with_their_units() {
    let got = panels_of(&fixture("matplotlib_2x2.svg"));
    assert_eq!(
        got,
        [
            (
                "Revenue ($m)".to_string(),
                Some((SeriesKind::Bars, 5, true))
            ),
            (
                "Operating margin (%)".to_string(),
                Some((SeriesKind::Line, 5, true))
            ),
            (
                "Free cash flow ($m)".to_string(),
                Some((SeriesKind::Bars, 5, true))
            ),
            (
                "Net margin (%)".to_string(),
                Some((SeriesKind::Line, 5, true))
            ),
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
            .filter(|f| f.id.as_str().starts_with("svg.") && f.status >= Status::Warn)
        {
            let line = format!("{} {}", f.status.as_str(), f.id.as_str());
            if !expect.lines().any(|l| l.trim() == line) {
                problems.push(format!("{name}: unexpected {line}: {}", f.message));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn fidelity_reads_bars_through_a_flipped_transform() {
    // Revenue 2023 drawn 5 % too tall inside `matrix(1 0 0 -1 0 300)`.
    let svg = fixture("grouped_styled.svg").replacen(r#"height="179.18""#, r#"height="188.14""#, 1);
    let report = chart_report(&svg);
    let misses: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.id.as_str() == "svg.fidelity")
        .collect();
    assert_eq!(misses.len(), 1, "{}", dump(&report));
    assert_eq!(misses[0].location.year, Some(2023));
    assert!(
        misses[0].message.contains("+5.0 %"),
        "{}",
        misses[0].message
    );
}

#[test]
fn fidelity_matches_the_longest_metric_name_in_a_title() {
    // "Revenue growth" is revenue_growth, not revenue: the revenue bars then misfit growth.
    let svg = northstar_text("financial_trends.svg").replacen(">Revenue<", ">Revenue growth<", 1);
    let report = chart_report(&svg);
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.id.as_str() == "svg.fidelity" && f.message.contains("revenue_growth")),
        "{}",
        dump(&report)
    );
}

#[test]
fn a_money_unit_beside_growth_words_allows_the_levels() {
    // `Revenue ($m) with YoY growth`: the bars are revenue levels (growth may be their labels);
    // either form is allowed, so the revenue bars are not judged as growth.
    let svg = northstar_text("financial_trends.svg").replacen(
        ">Revenue<",
        ">Revenue ($m) with YoY growth<",
        1,
    );
    let report = chart_report(&svg);
    assert!(
        !report
            .findings
            .iter()
            .any(|f| f.id.as_str() == "svg.fidelity" && f.status == Status::Fail),
        "{}",
        dump(&report)
    );
    // Without the unit the title pins revenue growth, and the level bars misfit it.
    let svg =
        northstar_text("financial_trends.svg").replacen(">Revenue<", ">Revenue YoY growth<", 1);
    assert!(
        has(&chart_report(&svg), "svg.fidelity", Status::Fail),
        "the growth title still pins growth"
    );
}

#[test]
fn a_huge_hostile_chart_is_judged_in_bounded_time() {
    // Thousands of overlapping frames, each holding everything: the geometric searches hit the
    // work budget instead of running quadratically.
    let mut svg =
        String::from(r#"<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="1000">"#);
    for i in 0..4000 {
        svg.push_str(&format!(
            r#"<g><rect x="0" y="0" width="1000" height="1000" fill="none"/><text x="{x}" y="900">2021</text><text x="{x2}" y="900">2022</text><text x="10" y="20">Title</text><polyline points="1,1 2,2"/></g>"#,
            x = i % 900,
            x2 = i % 900 + 50
        ));
    }
    svg.push_str("</svg>");
    let start = std::time::Instant::now();
    let report = chart_report(&svg);
    assert!(
        has(&report, "svg.panel_count", Status::Fail),
        "{}",
        dump(&report)
    );
    assert!(start.elapsed().as_secs() < 60, "took {:?}", start.elapsed());
}

/// The flat, bare chart (no groups, no frames) with its lines `from..to` (1-based, inclusive)
/// removed.
fn flat_bare_without(from: usize, to: usize) -> String {
    fixture("flat_bare.svg")
        .lines()
        .enumerate()
        .filter(|(i, _)| !(from..=to).contains(&(i + 1)))
        .map(|(_, l)| format!("{l}\n"))
        .collect()
}

/// The panels' titles, sorted.
fn panel_titles(svg: &str) -> Vec<String> {
    let mut titles: Vec<String> = panels_of(svg).into_iter().map(|(t, _)| t).collect();
    titles.sort();
    titles
}

#[test]
fn a_flat_bare_chart_is_split_at_its_gutters_even_under_a_figure_title_and_above_a_note() {
    let svg = fixture("flat_bare.svg")
        .replacen(
            "<text x=\"36\" y=\"48\"",
            "<text x=\"480\" y=\"16\" font-size=\"14\" text-anchor=\"middle\">Northstar Cloud, fiscal 2021 to 2025: four trends</text>\n    <text x=\"36\" y=\"48\"",
            1,
        )
        .replacen(
            "</svg>",
            "    <text x=\"480\" y=\"712\" font-size=\"10\" text-anchor=\"middle\">Source: northstar_cloud_financial_statements.csv</text>\n</svg>",
            1,
        );
    assert_eq!(
        panel_titles(&svg),
        [
            "Free cash flow",
            "Net margin",
            "Operating margin",
            "Revenue"
        ]
    );
    assert_clean(&svg);
}

#[test]
fn a_flat_bare_chart_with_three_panels_fails_the_panel_count() {
    // Lines 73–99 are the `Net margin` panel.
    let svg = flat_bare_without(73, 99);
    assert_eq!(
        panel_titles(&svg),
        ["Free cash flow", "Operating margin", "Revenue"]
    );
    let report = chart_report(&svg);
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.id.as_str() == "svg.panel_count" && f.message.contains("found 3")),
        "{:?}",
        svg_problems(&report)
    );
}

#[test]
fn a_flat_bare_panel_without_its_series_is_not_a_panel() {
    // Lines 89–94 are the `Net margin` polyline and its five points.
    let svg = flat_bare_without(89, 94);
    assert_eq!(
        panel_titles(&svg),
        ["Free cash flow", "Operating margin", "Revenue"]
    );
    assert!(!chart_report(&svg)
        .findings
        .iter()
        .all(|f| f.status < Status::Fail));
}

fn chart_coverage(report: &Report) -> vouch::report::Coverage {
    report
        .coverage
        .iter()
        .find(|(a, _)| a == "financial_trends.svg")
        .map(|(_, c)| *c)
        .expect("chart coverage")
}

/// The Northstar chart with its revenue panel retitled to name nothing, and `extra` added under
/// the title (a legend entry, or nothing).
fn retitled_revenue_panel(extra: &str) -> String {
    northstar_text("financial_trends.svg").replacen(
        ">Revenue</text>",
        &format!(">Scale of the business</text>{extra}"),
        1,
    )
}

#[test]
fn a_legend_entry_verifies_the_series_it_names_but_never_fails_one() {
    let legend = r##"<text x="300" y="66" font-size="11" fill="#555555">Revenue</text>"##;
    let bare = chart_coverage(&chart_report(&retitled_revenue_panel("")));
    let named = chart_coverage(&chart_report(&retitled_revenue_panel(legend)));
    assert_eq!(named.verified, bare.verified + 5, "{bare:?} -> {named:?}");
    assert_eq!(named.unverified + 5, bare.unverified);
    // A legend naming what the bars are not (net income is not proportional to revenue) leaves
    // them unverified, and is no failure.
    let wrong = r##"<text x="300" y="66" font-size="11" fill="#555555">Net income</text>"##;
    let r = chart_report(&retitled_revenue_panel(wrong));
    assert_eq!(chart_coverage(&r).verified, bare.verified);
    assert!(
        svg_problems(&r).is_empty(),
        "{}",
        svg_problems(&r).join("\n")
    );
}
