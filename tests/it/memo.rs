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

fn findings_of<'a>(r: &'a Report, id: &str) -> Vec<&'a Finding> {
    r.findings.iter().filter(|f| f.id.as_str() == id).collect()
}

#[test]
fn a_wrong_net_margin_for_fiscal_2022_fails_on_its_line() {
    // The data give net income 27.9 / revenue 1,038.4 = 2.69 % for FY2022.
    let m = edited(
        "Net margin was 8.13% in FY2025.",
        "Net margin was 2.96% in fiscal 2022.",
    );
    let r = verify_memo(&m);
    let f = findings_of(&r, "memo.contradicted_number");
    assert_eq!(f.len(), 1, "{}", dump(&r));
    assert_eq!(f[0].status, Status::Fail);
    assert_eq!(f[0].location.line, Some(line_of(&m, "fiscal 2022")));
    let n = f[0].number.as_ref().unwrap();
    assert_eq!(n.printed, "2.96%");
    assert_eq!(n.recomputed.as_deref(), Some("2.68683"));
}

#[test]
fn the_right_net_margin_for_fiscal_2022_passes() {
    let r = verify_memo(&edited(
        "Net margin was 8.13% in FY2025.",
        "Net margin was 2.69% in fiscal 2022.",
    ));
    assert!(
        findings_of(&r, "memo.contradicted_number").is_empty(),
        "{}",
        dump(&r)
    );
}

#[test]
fn deferred_revenue_is_not_read_as_revenue() {
    // 468.2 is deferred revenue in FY2024; revenue was 1,352.9.
    let ok = edited(
        "Deferred revenue rose 6.02% in FY2024",
        "Deferred revenue was $468.2 million in FY2024",
    );
    assert!(findings_of(&verify_memo(&ok), "memo.contradicted_number").is_empty());
    let bad = edited(
        "Deferred revenue rose 6.02% in FY2024",
        "Deferred revenue was $1,352.9 million in FY2024",
    );
    let r = verify_memo(&bad);
    assert_eq!(
        findings_of(&r, "memo.contradicted_number").len(),
        1,
        "{}",
        dump(&r)
    );
}

#[test]
fn interest_coverage_is_not_read_as_interest() {
    let r = verify_memo(&edited(
        "Interest coverage was 9.04x in FY2025.",
        "Interest coverage was 19.3x in FY2025.",
    ));
    assert_eq!(
        findings_of(&r, "memo.contradicted_number").len(),
        1,
        "{}",
        dump(&r)
    );
}

#[test]
fn a_forward_looking_question_about_fy2027_warns_but_does_not_fail() {
    let m = edited(
        "- Which customer cohorts drive growth",
        "- What is management's FY2027 guidance for revenue growth, and which customer cohorts drive growth",
    );
    let r = verify_memo(&m);
    let f = findings_of(&r, "memo.year_out_of_range");
    assert_eq!(f.len(), 1, "{}", dump(&r));
    assert_eq!(f[0].status, Status::Warn);
    assert_eq!(f[0].location.line, Some(line_of(&m, "FY2027")));
    assert!(
        memo_findings(&r).iter().all(|f| f.status != Status::Fail),
        "{}",
        dump(&r)
    );
}

#[test]
fn a_number_tied_to_a_year_outside_the_source_fails() {
    let r = verify_memo(&edited(
        "Capex was $92.6 million in FY2025.",
        "Capex will be $95.0 million in FY2026.",
    ));
    assert!(
        has(&r, "memo.number_out_of_range", Status::Fail),
        "{}",
        dump(&r)
    );
}

#[test]
fn a_change_may_be_written_as_its_magnitude() {
    // Cash conversion fell from 3.16x to 2.30x in FY2025: a change of -0.86.
    let r = verify_memo(&edited(
        "Cash conversion was 2.30x in FY2025.",
        "Cash conversion fell by 0.86x in FY2025.",
    ));
    assert!(
        findings_of(&r, "memo.contradicted_number").is_empty(),
        "{}",
        dump(&r)
    );
    // Operating margin rose 2.66 points in FY2025; 266 bps says the same.
    let r = verify_memo(&edited(
        "Operating margin widened by 2.66 points in FY2025.",
        "Operating margin widened by 266 bps in FY2025.",
    ));
    assert!(
        findings_of(&r, "memo.contradicted_number").is_empty(),
        "{}",
        dump(&r)
    );
}

#[test]
fn a_wrong_sign_on_a_change_is_contradicted() {
    let r = verify_memo(&edited(
        "Interest expense rose 20.67% in FY2023.",
        "Interest expense changed -20.67% in FY2023.",
    ));
    assert!(
        has(&r, "memo.contradicted_number", Status::Fail),
        "{}",
        dump(&r)
    );
}

#[test]
fn a_bare_number_is_read_as_a_fraction_or_times_100() {
    for s in [
        "Net margin was 0.0813 in FY2025.",
        "Net margin was 8.13 in FY2025.",
    ] {
        let r = verify_memo(&edited("Net margin was 8.13% in FY2025.", s));
        assert!(
            findings_of(&r, "memo.contradicted_number").is_empty(),
            "{s}\n{}",
            dump(&r)
        );
    }
}

#[test]
fn a_tied_number_where_the_value_is_undefined_is_contradicted() {
    let r = verify_memo(&edited(
        "ROE was 4.19% in FY2022.",
        "ROE was 4.19% in FY2021.",
    ));
    let f = findings_of(&r, "memo.contradicted_number");
    assert_eq!(f.len(), 1, "{}", dump(&r));
    assert_eq!(
        f[0].number.as_ref().unwrap().recomputed.as_deref(),
        Some("undefined")
    );
}

#[test]
fn contract_thresholds_are_not_checked() {
    let r = verify_memo(&edited(
        "Deferred revenue rose 6.02% in FY2024 (",
        "Deferred revenue rose 6.02% in FY2024, above no 15% threshold, nor 2 points (",
    ));
    assert!(
        findings_of(&r, "memo.contradicted_number").is_empty(),
        "{}",
        dump(&r)
    );
}

#[test]
fn a_number_written_next_to_its_year_is_tied_even_when_another_year_is_named() {
    // Contract §9: the year written right after the number is its year.
    let r = verify_memo(&edited(
        "Capex was $92.6 million in FY2025.",
        "Capex was $99.9 million in FY2025 against FY2024.",
    ));
    assert_eq!(
        findings_of(&r, "memo.contradicted_number").len(),
        1,
        "{}",
        dump(&r)
    );
}

#[test]
fn a_sentence_naming_two_items_joined_ties_nothing() {
    let r = verify_memo(&edited(
        "Capex was $92.6 million in FY2025.",
        "Capex and revenue were $99.9 million in FY2025.",
    ));
    assert!(
        findings_of(&r, "memo.contradicted_number").is_empty(),
        "{}",
        dump(&r)
    );
}

#[test]
fn setext_and_numbered_headings_count_as_sections() {
    let m = edited(
        "## Executive view\n",
        "Executive view:\n=================\n",
    )
    .replacen("## Profitability\n", "## 3. Profitability\n", 1)
    .replacen("## Bull case\n", "## Section 7: Bull case\n", 1)
    .replacen("## Conclusion\n", "### XI. Conclusion\n", 1);
    let r = verify_memo(&m);
    assert!(
        findings_of(&r, "memo.missing_section").is_empty(),
        "{}",
        dump(&r)
    );
}

#[test]
fn kpi_table_with_years_as_rows_is_checked() {
    let m = memo();
    let start = m.find("| Metric | FY2021").unwrap();
    let end = start + m[start..].find("\n\n").unwrap();
    let rows = "| Year | Net margin | Current ratio | ROA |\n|---|---|---|---|\n\
                | 2021 | 1.69% | 1.63x | n/a |\n| 2022 | 2.69% | 1.61x | 1.81% |\n| 2023 | 4.53% | 1.59x | 3.20% |\n\
                | 2024 | 5.88% | 1.71x | 4.10% |\n| 2025 | 8.13% | 1.65x | 5.73% |";
    let good = format!("{}{}{}", &m[..start], rows, &m[end..]);
    let r = verify_memo(&good);
    assert!(
        memo_findings(&r).iter().all(|f| f.status < Status::Warn),
        "{}",
        dump(&r)
    );
    let bad = good.replace("| 2023 | 4.53% |", "| 2023 | 4.35% |");
    let r = verify_memo(&bad);
    let f = findings_of(&r, "memo.kpi_value");
    assert_eq!(f.len(), 1, "{}", dump(&r));
    assert_eq!(f[0].location.year, Some(2023));
    assert_eq!(f[0].location.line, Some(line_of(&bad, "| 2023 | 4.35%")));
}

#[test]
fn kpi_fractions_are_scaled_by_fit_and_fill_the_reading() {
    let m = edited(
        "| Gross margin | 70.91% | 71.56% | 72.19% | 72.53% | 73.16% |",
        "| Gross margin | 0.7091 | 0.7156 | 0.7219 | 0.7253 | 0.7316 |",
    );
    let r = verify_memo(&m);
    assert!(
        memo_findings(&r).iter().all(|f| f.status < Status::Warn),
        "{}",
        dump(&r)
    );
}

#[test]
fn evidence_needs_a_year_and_a_file_in_the_same_paragraph() {
    let r = verify_memo(&edited(
        "Capital expenditures rose 57.70% in FY2023 (northstar_cloud_financial_statements.csv).",
        "Capital expenditures rose 57.70% in FY2023.",
    ));
    let f = findings_of(&r, "memo.missing_evidence");
    assert_eq!(f.len(), 1, "{}", dump(&r));
    assert!(f[0].message.contains("capex"));
}

#[test]
fn an_evidence_table_under_a_caption_citing_the_file_backs_a_topic() {
    // Without the sentence, capex is only in a table row with its year, under a caption citing
    // the file: traceable, so no missing evidence.
    let without = edited(
        "Capital expenditures rose 57.70% in FY2023 (northstar_cloud_financial_statements.csv).",
        "Capital expenditures rose 57.70% in FY2023.",
    );
    let with_table = without.replacen(
        "## Bull case",
        "Flags from `unusual_movements.csv`:\n\n| Year | Item | Change |\n|---|---|---|\n| FY2023 | capex | +57.70% |\n\n## Bull case",
        1,
    );
    assert_ne!(with_table, without, "the memo has a Bull case heading");
    let r = verify_memo(&with_table);
    assert!(
        findings_of(&r, "memo.missing_evidence").is_empty(),
        "{}",
        dump(&r)
    );
    // A source note right under the table cites it as well.
    let with_note = without.replacen(
        "## Bull case",
        "Flags:\n\n| Year | Item | Change |\n|---|---|---|\n| FY2023 | capex | +57.70% |\n\n*Source: `unusual_movements.csv`.*\n\n## Bull case",
        1,
    );
    let r = verify_memo(&with_note);
    assert!(
        findings_of(&r, "memo.missing_evidence").is_empty(),
        "{}",
        dump(&r)
    );
    // The same table with no caption citing a file does not.
    let bare = without.replacen(
        "## Bull case",
        "Flags:\n\n| Year | Item | Change |\n|---|---|---|\n| FY2023 | capex | +57.70% |\n\n## Bull case",
        1,
    );
    let r = verify_memo(&bare);
    assert_eq!(
        findings_of(&r, "memo.missing_evidence").len(),
        1,
        "{}",
        dump(&r)
    );
}

#[test]
fn a_list_introduced_by_a_line_citing_the_file_backs_its_items() {
    let without = edited(
        "Capital expenditures rose 57.70% in FY2023 (northstar_cloud_financial_statements.csv).",
        "Capital expenditures rose 57.70% in FY2023.",
    );
    let list = |lead: &str| {
        without.replacen(
            "## Bull case",
            &format!("{lead}\n\n- Capex rose 57.70% in FY2023.\n- Revenue grew 10.74% in FY2024.\n\n## Bull case"),
            1,
        )
    };
    let r = verify_memo(&list("Facts (`calculated_metrics.csv`):"));
    assert!(
        findings_of(&r, "memo.missing_evidence").is_empty(),
        "{}",
        dump(&r)
    );
    // A lead-in that cites no file, or is no introduction (no colon), backs nothing.
    for lead in ["Facts:", "See `calculated_metrics.csv` for more."] {
        let r = verify_memo(&list(lead));
        assert_eq!(
            findings_of(&r, "memo.missing_evidence").len(),
            1,
            "{lead}\n{}",
            dump(&r)
        );
    }
}

#[test]
fn upload_prefixes_and_paths_are_stripped_from_file_citations_and_urls_are_ignored() {
    let r = verify_memo(&edited(
        "(northstar_cloud_financial_statements.csv). Interest",
        "(/mnt/data/3fa2b9-northstar_cloud_financial_statements.csv, see https://example.com/other.csv). Interest",
    ));
    assert!(
        findings_of(&r, "memo.unknown_file").is_empty(),
        "{}",
        dump(&r)
    );
    let r = verify_memo(&edited(
        "in financial_trends.svg keeps",
        "in [the chart](charts/trends.svg) keeps",
    ));
    assert_eq!(
        findings_of(&r, "memo.unknown_file").len(),
        1,
        "{}",
        dump(&r)
    );
}

#[test]
fn a_numbered_list_item_is_not_a_heading_but_says_why() {
    let r = verify_memo(&edited("## Executive view\n", "1. Executive view\n"));
    assert!(
        has(&r, "memo.missing_section", Status::Fail),
        "{}",
        dump(&r)
    );
    assert!(
        has(&r, "memo.heading_lookalike", Status::Warn),
        "{}",
        dump(&r)
    );
}

#[test]
fn a_heading_number_is_not_a_figure() {
    let r = verify_memo(&edited(
        "## Profitability\n",
        "## 2. Profitability: revenue in FY2025\n",
    ));
    assert!(
        findings_of(&r, "memo.contradicted_number").is_empty(),
        "{}",
        dump(&r)
    );
    assert!(
        findings_of(&r, "memo.missing_section").len() == 1,
        "{}",
        dump(&r)
    );
}

#[test]
fn pathological_memos_finish_quickly_without_panicking() {
    let started = std::time::Instant::now();
    let big_paragraph = format!(
        "{}\n",
        "Revenue was $1,498.3 million in FY2025. ".repeat(10_000)
    );
    let deep_quotes = format!("{} Revenue 12.5% FY2025\n", ">".repeat(5_000));
    let deep_lists: String = (0..2_000)
        .map(|i| format!("{}- item FY2025 revenue {i}\n", "  ".repeat(i % 200)))
        .collect();
    let wide_table = format!(
        "## KPI table\n\n| Metric |{}\n|{}\n| Revenue |{}\n",
        " FY2025 |".repeat(2_000),
        "---|".repeat(2_001),
        " $1,498.3 |".repeat(2_000)
    );
    for m in [big_paragraph, deep_quotes, deep_lists, wide_table] {
        let r = verify_memo(&m);
        // Nesting past the pre-scan's limit is refused before parsing (docs/security.md).
        assert!(
            has(&r, "memo.missing_section", Status::Fail)
                || has(&r, "memo.too_complex", Status::Fail)
        );
    }
    assert!(
        started.elapsed().as_secs() < 60,
        "took {:?}",
        started.elapsed()
    );
}

#[test]
fn a_measure_derived_from_a_line_item_is_not_the_line_item() {
    // 11.64% is operating income over revenue; it is neither operating income nor its change.
    let r = verify_memo(&edited(
        "Operating margin was 11.64% in FY2025. Operating leverage",
        "Operating income margin was 11.64% in FY2025. Operating leverage",
    ));
    assert!(
        findings_of(&r, "memo.contradicted_number").is_empty(),
        "{}",
        dump(&r)
    );
}

#[test]
fn a_date_in_a_sentence_is_not_a_figure() {
    let r = verify_memo(&edited(
        "Capex was $92.6 million in FY2025.",
        "Capex was $92.6 million in the year ended December 31, 2025.",
    ));
    assert!(
        findings_of(&r, "memo.contradicted_number").is_empty(),
        "{}",
        dump(&r)
    );
}

#[test]
fn a_terse_memo_in_another_style_passes() {
    // Setext numbered headings, front matter, years as rows, FYyy labels, fractions scaled by
    // fit, links with upload prefixes, `percent`/`pts`/`bps`/`times` units, a forward question.
    let m = include_str!("memo_styles/terse.md");
    let r = verify_memo(m);
    let bad: Vec<String> = memo_findings(&r)
        .iter()
        // `225 bps` from margins rounded to two decimals is off by 0.52 of its last digit: a
        // double-rounding warning (§7), not an error.
        .filter(|f| f.status >= Status::Warn && f.id.as_str() != "memo.year_out_of_range")
        .filter(|f| !(f.id.as_str() == "memo.contradicted_number" && f.status == Status::Warn))
        .map(|f| format!("{} {:?} {}", f.id.as_str(), f.location.line, f.message))
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    let out_of_range = findings_of(&r, "memo.year_out_of_range");
    assert_eq!(out_of_range.len(), 1, "{}", dump(&r));
    assert_eq!(out_of_range[0].location.line, Some(line_of(m, "FY2027")));
}

#[test]
fn the_terse_memo_still_catches_one_wrong_figure() {
    let m = include_str!("memo_styles/terse.md").replace("$121.8 million", "$112.8 million");
    let r = verify_memo(&m);
    let f: Vec<_> = findings_of(&r, "memo.contradicted_number")
        .into_iter()
        .filter(|f| f.status == Status::Fail)
        .collect();
    assert_eq!(f.len(), 1, "{}", dump(&r));
    assert_eq!(f[0].location.line, Some(line_of(&m, "$112.8 million")));
    let m = include_str!("memo_styles/terse.md").replace(
        "| FY23 | 17.65% | 72.19 | 0.0453",
        "| FY23 | 17.65% | 72.19 | 0.0435",
    );
    let r = verify_memo(&m);
    assert_eq!(findings_of(&r, "memo.kpi_value").len(), 1, "{}", dump(&r));
}

#[test]
fn kpi_labels_that_fold_to_no_name_are_matched_as_words_and_million_suffixes_are_plain() {
    let m = edited(
        "| Free cash flow ($m) | $83.4 | $106.7 | $117.6 | $162.9 | $187.0 |",
        "| Free cash flow, $m | $83.4m | $106.7m | $117.6m | $162.9m | $187.0 million* |",
    );
    let r = verify_memo(&m);
    assert!(
        memo_findings(&r).iter().all(|f| f.status < Status::Warn),
        "{}",
        dump(&r)
    );
    let r = verify_memo(&m.replace("$117.6m", "$171.6m"));
    let f = findings_of(&r, "memo.kpi_value");
    assert_eq!(f.len(), 1, "{}", dump(&r));
    assert_eq!(f[0].location.year, Some(2023));
}

#[test]
fn a_table_outside_the_kpi_section_ties_each_cell_to_its_year() {
    let table = "| Line item | FY2024 | FY2025 | Change |\n|---|---|---|---|\n\
                 | Net income | $79.6m | $121.8m | +53.02% |\n| Operating margin | 8.98% | 11.64% | +2.66 pts |\n\n";
    let good = edited(
        "Net margin was 8.13% in FY2025. ROE",
        &format!("{table}Net margin was 8.13% in FY2025. ROE"),
    );
    let r = verify_memo(&good);
    assert!(
        memo_findings(&r).iter().all(|f| f.status < Status::Warn),
        "{}",
        dump(&r)
    );
    let bad = good.replace("| $79.6m |", "| $97.6m |");
    let r = verify_memo(&bad);
    let f = findings_of(&r, "memo.contradicted_number");
    assert_eq!(f.len(), 1, "{}", dump(&r));
    assert_eq!(f[0].location.line, Some(line_of(&bad, "$97.6m")));
    assert_eq!(f[0].location.year, Some(2024));
}

/// Run the memo family alone on the Northstar bundle with a replaced memo.
fn read_memo(text: &str) -> vouch::checks::memo::MemoReading {
    use vouch::checks::{memo, metrics::MetricsReading, Context};
    let spec = spec();
    let source = northstar_source_text();
    let stmts = vouch::source::Statements::read_bytes(
        "northstar_cloud_financial_statements.csv",
        "northstar_cloud_financial_statements.csv",
        source.as_bytes(),
        &spec,
    )
    .unwrap();
    let truth = vouch::recompute::Truth::compute(&spec, &stmts, &stmts.valid_years().unwrap());
    let files = with_file(northstar_files(), MEMO, text.as_bytes().to_vec());
    let bundle = vouch::bundle::Bundle::from_files("memory", files, &spec);
    let ctx = Context {
        spec: &spec,
        stmts: &stmts,
        truth: Some(&truth),
        bundle: &bundle,
        source_alias: None,
    };
    let mut out = Vec::new();
    memo::check(&ctx, &MetricsReading::default(), &mut out)
}

#[test]
fn every_metric_cell_of_the_kpi_table_is_in_the_reading() {
    let m = memo();
    let reading = read_memo(&m);
    // 14 metric rows × 5 years, less the 4 first-year blanks (revenue growth, ROA, ROE,
    // receivables growth); the revenue row is a line item, not a metric.
    assert_eq!(reading.kpi.len(), 66);
    let spec = spec();
    let nm = spec.metric_index("net_margin").unwrap();
    let cell = reading
        .kpi
        .iter()
        .find(|k| k.metric == nm && k.t == 1)
        .unwrap();
    assert_eq!(cell.printed.raw, "2.69%");
    assert_eq!(cell.scale, vouch::numbers::Scale::Hundred);
    assert_eq!(cell.location.line, Some(line_of(&m, "| Net margin |")));
    let cr = spec.metric_index("current_ratio").unwrap();
    let cell = reading
        .kpi
        .iter()
        .find(|k| k.metric == cr && k.t == 4)
        .unwrap();
    assert_eq!(cell.scale, vouch::numbers::Scale::Fraction);
}

#[test]
fn a_narrative_memo_with_common_agent_phrasing_passes() {
    // Billions, `(+2.7 pts YoY)`, `(-7.2%)`, `&` in headings, synonyms as KPI labels, fractions
    // with 3 digits, `n/m`, an unmatched KPI label, durations, ranges, a FY2026 question.
    let m = include_str!("memo_styles/narrative.md");
    let r = verify_memo(m);
    let bad: Vec<String> = memo_findings(&r)
        .iter()
        // `225 bps` from margins rounded to two decimals is off by 0.52 of its last digit: a
        // double-rounding warning (§7), not an error.
        .filter(|f| f.status >= Status::Warn && f.id.as_str() != "memo.year_out_of_range")
        .filter(|f| !(f.id.as_str() == "memo.contradicted_number" && f.status == Status::Warn))
        .map(|f| format!("{} {:?} {}", f.id.as_str(), f.location.line, f.message))
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(has(&r, "memo.kpi_unmatched_label", Status::Info));
    assert_eq!(
        findings_of(&r, "memo.year_out_of_range").len(),
        1,
        "{}",
        dump(&r)
    );
    for (from, to, id) in [
        (
            "EBIT rose 43.5%",
            "EBIT rose 34.5%",
            "memo.contradicted_number",
        ),
        (
            "(+2.7 pts YoY)",
            "(+7.2 pts YoY)",
            "memo.contradicted_number",
        ),
        ("(-7.2%)", "(-2.7%)", "memo.contradicted_number"),
        ("| 0.1765 |", "| 0.1756 |", "memo.kpi_value"),
        ("| 9.27x |", "| 9.72x |", "memo.kpi_value"),
    ] {
        assert!(m.contains(from), "{from}");
        let r = verify_memo(&m.replacen(from, to, 1));
        assert_eq!(findings_of(&r, id).len(), 1, "{from} -> {to}\n{}", dump(&r));
    }
}

mod reader_never_panics {
    use super::*;
    use proptest::prelude::*;

    /// Pieces of agent prose: names, cue words, years, figures in every unit, punctuation and
    /// Markdown structure (tables, lists, parentheses, arrows).
    fn piece() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("revenue".to_string()),
            Just("net income".to_string()),
            Just("operating margin".to_string()),
            Just("FCF".to_string()),
            Just("cash + STI".to_string()),
            Just("OCF - NI".to_string()),
            Just("cumulative".to_string()),
            Just("CAGR".to_string()),
            Just("peaked at".to_string()),
            Just("growth".to_string()),
            Just("vs".to_string()),
            Just("from".to_string()),
            Just("to".to_string()),
            Just("of".to_string()),
            Just("below".to_string()),
            Just("and".to_string()),
            Just("in".to_string()),
            Just("DIO".to_string()),
            Just("->".to_string()),
            Just("→".to_string()),
            Just("(".to_string()),
            Just(")".to_string()),
            Just(";".to_string()),
            Just(",".to_string()),
            Just(":".to_string()),
            Just(". ".to_string()),
            Just("\n".to_string()),
            Just("\n\n".to_string()),
            Just("| ".to_string()),
            Just("|---|---|\n".to_string()),
            Just("- ".to_string()),
            Just("## Bull case\n".to_string()),
            (2019i32..2027).prop_map(|y| format!("FY{y}")),
            (2019i32..2027).prop_map(|y| y.to_string()),
            (-500i32..5000).prop_map(|v| format!("{:.1}%", v as f64 / 10.0)),
            (-500i32..5000).prop_map(|v| format!("{:.2}x", v as f64 / 100.0)),
            (-5000i32..50000).prop_map(|v| format!(
                "${},{:03}.{}",
                v / 1000,
                (v % 1000).abs(),
                v.rem_euclid(10)
            )),
            (-50i32..50).prop_map(|v| format!("{v:+} pp")),
            (0i32..100).prop_map(|v| format!("{v}:{v:02}")),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]
        #[test]
        fn any_memo_like_text_is_read_and_judged_without_panicking(
            ps in proptest::collection::vec(piece(), 0..80)
        ) {
            let body = ps.join(" ");
            let text = format!("{}\n\n{body}\n", memo());
            let reading = read_memo(&text);
            prop_assert!(reading.coverage.total() > 0);
        }
    }
}

#[test]
fn days_sales_outstanding_is_recomputed_under_every_listed_formula() {
    // FY2024: receivables 247.3 over revenue 1,352.9 × 365 = 66.72 days (year-end balance);
    // average receivables (199.5 + 247.3) / 2 give 60.27 days; FY2023 year-end is 59.60.
    let from = "Revenue growth was 10.74% in FY2024. Receivables";
    for (sentence, contradicted) in [
        ("DSO rose from 59.6 to 66.7 days in FY2024.", 0),
        (
            "Days sales outstanding (average receivables) was 60.3 days in FY2024.",
            0,
        ),
        ("DSO was 72.4 days in FY2024.", 1),
        ("DSO rose from 59.6 to 72.4 days in FY2024.", 1),
    ] {
        let m = edited(
            from,
            &format!("Revenue growth was 10.74% in FY2024. {sentence} Receivables"),
        );
        let r = verify_memo(&m);
        let f = findings_of(&r, "memo.contradicted_number");
        assert_eq!(f.len(), contradicted, "{sentence}\n{}", dump(&r));
        if let Some(f) = f.first() {
            assert_eq!(f.number.as_ref().unwrap().printed, "72.4 days");
        }
    }
}

#[test]
fn a_days_figure_is_never_a_line_item_value() {
    // 247.3 is FY2024 receivables; written in days it is not a balance, and is not judged.
    let r = verify_memo(&edited(
        "Revenue growth was 10.74% in FY2024.",
        "Revenue growth was 10.74% in FY2024. Accounts receivable took 247.3 days in FY2024.",
    ));
    assert!(
        findings_of(&r, "memo.contradicted_number").is_empty(),
        "{}",
        dump(&r)
    );
}

#[test]
fn a_cell_of_year_figure_pairs_ties_each_figure_to_its_year() {
    // Revenue grew 23.24% in FY2022 and 17.65% in FY2023.
    let table = "| Line item | Flagged years (YoY change) |\n|---|---|\n\
                 | Revenue | 2022 +23.2%; 2023 +17.7% |\n\n";
    let good = edited(
        "Net margin was 8.13% in FY2025. ROE",
        &format!("{table}Net margin was 8.13% in FY2025. ROE"),
    );
    let r = verify_memo(&good);
    assert!(
        findings_of(&r, "memo.contradicted_number").is_empty(),
        "{}",
        dump(&r)
    );
    // The years are not figures: nothing of the row is left unverified.
    let line = line_of(&good, "| Revenue | 2022");
    assert!(
        !r.findings
            .iter()
            .any(|f| f.id.as_str() == "memo.unverified_number" && f.location.line == Some(line)),
        "{}",
        dump(&r)
    );
    let bad = good.replace("2023 +17.7%", "2023 +23.2%");
    let f = findings_of(&verify_memo(&bad), "memo.contradicted_number").len();
    assert_eq!(f, 1);
}

#[test]
fn bare_coverage_is_interest_coverage_but_fcf_coverage_is_not() {
    let ok = edited(
        "Interest coverage was 9.04x in FY2025.",
        "Coverage was 9.04x in FY2025.",
    );
    assert!(findings_of(&verify_memo(&ok), "memo.contradicted_number").is_empty());
    let bad = edited(
        "Interest coverage was 9.04x in FY2025.",
        "Coverage was 19.3x in FY2025.",
    );
    assert_eq!(
        findings_of(&verify_memo(&bad), "memo.contradicted_number").len(),
        1
    );
    let other = edited(
        "Interest coverage was 9.04x in FY2025.",
        "FCF coverage was 19.3x in FY2025.",
    );
    let r = verify_memo(&other);
    assert!(
        findings_of(&r, "memo.contradicted_number").is_empty(),
        "{}",
        dump(&r)
    );
}

/// The memo with one sentence added after the FY2024 revenue-growth sentence; its findings.
fn with_sentence(sentence: &str) -> (Report, String) {
    let m = edited(
        "Revenue growth was 10.74% in FY2024. Receivables",
        &format!("Revenue growth was 10.74% in FY2024. {sentence} Receivables"),
    );
    (verify_memo(&m), m)
}

#[test]
fn figures_agents_write_correctly_are_never_contradicted() {
    // Northstar: FCF 83.4, 106.7, 117.6, 162.9, 187.0 (FY2021–FY2025), SBC 161.8 in FY2025;
    // total liabilities 845.3 → 1,093.2; deferred revenue +9.50% in FY2025; DSO 66.72 days in
    // FY2024 and 64.02 in FY2025 (year-end receivables).
    for sentence in [
        // A combination with a prose name: FCF after SBC = 187.0 − 161.8.
        "FCF after stock comp was 25.2 in FY2025.",
        // A cumulative sum over another span than the one written for the next item.
        "Cumulative FCF of 574.2 compares with the 247.9 rise in total liabilities over FY2021–FY2025.",
        // The constant of a written-out formula.
        "DSO (receivables / revenue × 365) was 64.0 days in FY2025.",
        // A pronoun subject: `then rose` is deferred revenue, not revenue.
        "It fell 5.0% in FY2023 while revenue rose 10.7%, then rose 9.5% in FY2025.",
        // The year after an extreme is the extreme's.
        "DSO eased to 64.0 days from a 66.7 peak in FY2024.",
        // A list continuing after a comparison: `FY2024 -9.9%` is receivables', not revenue's
        // (receivables grew 13.22% and 23.96% in FY2023 and FY2024; revenue 17.65% and 10.74%).
        "Receivables growth: FY2023 13.22% vs revenue 17.65%; FY2024 23.96% vs revenue 10.74%.",
        // A CAGR over the two years of the move before it.
        "Revenue rose from 842.6 (FY2021) to 1,498.3 (FY2025), a 15.5% CAGR, though it grew 10.74% in FY2024.",
        // A year in a parenthesis right after a figure is that figure's alone: 3.03x is
        // FY2022's coverage, not FY2021's.
        "Interest coverage went 2.02x (FY2021 low) -> 3.03x -> 9.04x.",
        // A parenthesis holding the figure alone, right after a name, is that name's.
        "SBC (161.8) exceeded net income (121.8) in FY2025.",
        // A whole number before a plural noun of things counted is a count, not the value of
        // the item among the words between.
        "In FY2025 the script raised 11 flags, including 5 operating-margin moves of at least 2 pp.",
        // An identifier with a word that is no name nor descriptor is a quantity of its own:
        // `equity` inside it is not total equity (1,101.5 in FY2025).
        "Equity rose 89.3 in FY2025 (`equity_rollforward_gap` -12.4 in FY2025).",
        // Three or more figures joined by commas list years; the one year written is the text's
        // between them, not theirs (coverage 2.02x, 3.03x, 4.24x in FY2021-FY2023).
        "Interest coverage: 2.02x, 3.03x, 4.24x, then 5.84x in FY2024.",
        // An amount after `by` in a clause with a difference cue is a difference.
        "Total liabilities exceed the current items (cash, receivables) by 432.1 in FY2025.",
        // Figures of a list headed by an undefined quantity are that quantity's.
        "Bridge residuals in FY2025: equity -12.4; cash -3.3.",
        // A year in a parenthesis with another figure is that figure's: 11.52% is FY2025's
        // ROE, 8.55% FY2024's.
        "ROE was 11.52% (8.55% in FY2024).",
        // `because` opens a clause with a subject of its own: 161.8 is SBC's, not net margin's.
        "Net margin looks better than it is because SBC reached 161.8 in FY2025.",
        // A figure after a word of supposition is what would be, not what was.
        "At that pace FY2025 operating income would be 224.7, a 15.0% operating margin.",
        "If FY2025 revenue had grown 20%, coverage might have reached 11.0x.",
        // A possessive year is the figure's after it: 9.04x is FY2025's, 2.02x FY2021's.
        "Coverage reached 9.04x in FY2025, far above FY2021's 2.02x.",
        // `between A and B`: the ends of a range over the years.
        "Operating margin lay between 4.41% and 11.64% over FY2021-FY2025.",
        // A rate per year is over a span, not one year's growth.
        "FY2025 revenue kept compounding at 15.5% a year.",
        "FY2025 revenue kept growing 15.5% a year.",
        // A year after `above` is the baseline's: 262.8 is FY2025's receivables.
        "Receivables sit well above FY2021 levels (AR 262.8 vs 138.7).",
        // Years each written next to another figure are theirs, not 1.57x's.
        "Quick ratio 1.57x (FY2024: 1.62x; series low 1.50x in FY2023).",
        // The year of a prior value after `from` is that value's: 9.04x is FY2025's coverage.
        "Interest coverage reached 9.04x in the latest year, up from 2.02x in FY2021.",
        // A percent continuing a share (`from 29.1% of revenue … to 26.8% …`) is a share too.
        "Cost of revenue fell from 29.09% of revenue in FY2021 to 26.84% in FY2025 and 27.47% in FY2024.",
        // The whole after a count is a count.
        "FY2025 net margin ranks 1 of 5 in the series at 8.13%.",
        // A number after `<=` is a condition, not a figure (round 13).
        "Cash conversion is left blank when net income <= 0 (FY2024).",
        "Coverage is blank when interest expense >= 0 is missing in FY2024.",
    ] {
        let (r, _) = with_sentence(sentence);
        assert!(
            findings_of(&r, "memo.contradicted_number").is_empty(),
            "{sentence}\n{}",
            dump(&r)
        );
    }
}

#[test]
fn the_same_figures_written_wrong_are_still_contradicted() {
    for (sentence, printed) in [
        ("FCF after stock comp was 30.2 in FY2025.", "30.2"),
        (
            "Revenue rose from 842.6 (FY2021) to 1,498.3 (FY2025), an 18.5% CAGR, though it grew 10.74% in FY2024.",
            "18.5%",
        ),
        // A certain compound rate is judged on its own reading: 23.2% is FY2022's growth, a
        // reading the move's years make plausible, but not the CAGR it says it is.
        (
            "Revenue rose from 842.6 (FY2021) to 1,498.3 (FY2025), a 23.2% CAGR, though it grew 10.74% in FY2024.",
            "23.2%",
        ),
        // A verb of movement carries the item on to the figure past the first (operating cash
        // flow was 279.6 in FY2025).
        (
            "Operating cash flow went from 131.6 (FY2021) to 299.6 (FY2025).",
            "299.6",
        ),
        ("SBC (161.8) exceeded net income (158.3) in FY2025.", "158.3"),
        // A count noun after a linking word does not make the figure before it a count.
        ("Net income was 5 in FY2025 for the 3 years.", "5"),
        // An identifier that is a name with its descriptors is still that name.
        ("ROE (`roe_avg_equity_pct`) was 19.9% in FY2025.", "19.9%"),
        // A figure of a listed series that matches no year is contradicted when the list names
        // as many years as it has figures.
        (
            "Interest coverage in FY2021, FY2022 and FY2023: 2.02x, 3.93x, 4.24x.",
            "3.93x",
        ),
        // The figure inside the parenthesis is still its year's.
        ("ROE was 11.52% (8.95% in FY2024).", "8.95%"),
        // A figure before a word of supposition is a statement of fact.
        (
            "Operating income was 150.0 in FY2025 and would be higher at a 15% margin.",
            "150.0",
        ),
        // An arrow path as long as the source's years names them in order (FY2024: 1.03x).
        (
            "Liabilities to equity 1.39x -> 1.25x -> 1.15x -> 1.30x -> 0.992x.",
            "1.30x",
        ),
        // A label before a colon is not the item of the figures after it.
        (
            "**Receivables (`calculated_metrics.csv`):** receivables growth FY2023 13.22%, FY2024 33.96%.",
            "33.96%",
        ),
        // `a year ago` is no rate per year: 12.0% is FY2025's revenue growth, said wrong.
        (
            "FY2025 revenue grew 12.0% on a year ago.",
            "12.0%",
        ),
        // `had jumped from X (FY2023)` binds X to the item before it, whatever else its clause
        // names (equity was 849.7 in FY2023).
        (
            "In FY2024, equity had jumped from 879.7 (FY2023) on only 79.6 of net income.",
            "879.7",
        ),
        // `the +X change in FY2025` is the item's change in that year (current liabilities rose
        // 65.6 in FY2025).
        (
            "Current liabilities: explain the +85.6 change in FY2025.",
            "85.6",
        ),
        // The base of another figure's share does not make this one uncertain (capex FY2025
        // grew 4.75 %).
        (
            "Capex: 92.6 in FY2025 (+9.75% YoY), 1.2x of D&A and 6.18% of revenue.",
            "9.75%",
        ),
        // The clause before `because` keeps its own figure.
        (
            "Net margin was 8.31% in FY2025 because SBC reached 161.8.",
            "8.31%",
        ),
    ] {
        let (r, _) = with_sentence(sentence);
        let f = findings_of(&r, "memo.contradicted_number");
        assert!(
            f.iter().any(|f| f.number.as_ref().is_some_and(|n| n.printed.starts_with(printed)
                || sentence.contains(&n.printed))),
            "{sentence}\n{}",
            dump(&r)
        );
    }
}

/// Every file name of the good memo replaced by a bracketed key: the evidence topics are backed
/// only if the memo defines the key (`[S] = `file.csv``).
fn keyed_memo(define: bool) -> String {
    let mut m = memo();
    for f in [
        "northstar_cloud_financial_statements.csv",
        "calculated_metrics.csv",
        "unusual_movements.csv",
        "analysis_run.json",
    ] {
        m = m.replace(f, "[S]");
    }
    if define {
        let at = m.find("\n\n").unwrap();
        m.insert_str(
            at,
            "\n\nSource key: [S] = `northstar_cloud_financial_statements.csv` (the statements).",
        );
    }
    m
}

#[test]
fn a_defined_citation_key_cites_its_file_and_an_undefined_one_does_not() {
    let r = verify_memo(&keyed_memo(false));
    assert!(
        !findings_of(&r, "memo.missing_evidence").is_empty(),
        "{}",
        dump(&r)
    );
    let r = verify_memo(&keyed_memo(true));
    assert!(
        findings_of(&r, "memo.missing_evidence").is_empty(),
        "{}",
        dump(&r)
    );
}

#[test]
fn a_year_the_memo_says_the_file_lacks_is_not_cited_but_a_claim_about_it_is() {
    let lacks = edited(
        "## Data limitations\n\n",
        "## Data limitations\n\nFY2020 is not in the file, so FY2021 has no growth rates.\n\n",
    );
    let r = verify_memo(&lacks);
    assert!(
        findings_of(&r, "memo.year_out_of_range").is_empty(),
        "{}",
        dump(&r)
    );
    let claim = edited(
        "## Data limitations\n\n",
        "## Data limitations\n\nFY2026 may not repeat the FY2025 cash conversion.\n\n",
    );
    let r = verify_memo(&claim);
    assert_eq!(
        findings_of(&r, "memo.year_out_of_range").len(),
        1,
        "{}",
        dump(&r)
    );
}
