//! Source, recompute, metrics, movements and bundle rules that need generated inputs rather than
//! committed fixtures: exact thresholds, integer identities, layouts, real statements.

use crate::support::*;
use proptest::prelude::*;
use vouch::numbers::{judge, parse_decimal, parse_number, show, Agreement, Num};
use vouch::recompute::{Basis, ItemRef, Truth};
use vouch::report::Status;
use vouch::source::Statements;

fn read_source(text: &str) -> Statements {
    Statements::read_bytes("s.csv", "s.csv", text.as_bytes(), &spec()).unwrap()
}

/// A two-year source where every column is `base` except the given overrides.
fn two_year_source(overrides: &[(&str, &str, &str)]) -> String {
    let spec = spec();
    let cols: Vec<&str> = spec
        .source
        .columns
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    let mut rows = vec![cols.join(",")];
    for (i, year) in ["2021", "2022"].iter().enumerate() {
        let cells: Vec<String> = cols
            .iter()
            .map(|c| {
                if *c == "year" {
                    return year.to_string();
                }
                if let Some((_, a, b)) = overrides.iter().find(|(n, _, _)| n == c) {
                    return if i == 0 { a } else { b }.to_string();
                }
                match *c {
                    "total_assets" => "300",
                    "total_liabilities" | "total_equity" => "150",
                    "revenue" => "1000",
                    "cost_of_revenue" => "400",
                    "gross_profit" => "600",
                    _ => "100",
                }
                .to_string()
            })
            .collect();
        rows.push(cells.join(","));
    }
    rows.join("\n") + "\n"
}

fn truth_of(text: &str) -> (Statements, Truth) {
    let stmts = read_source(text);
    assert!(stmts.problems.is_empty(), "{:?}", stmts.problems);
    let years = stmts.valid_years().unwrap();
    let truth = Truth::compute(&spec(), &stmts, &years);
    (stmts, truth)
}

fn fires(truth: &Truth, rule: &str, item: ItemRef) -> bool {
    let r = spec().rule_index(rule).unwrap();
    truth
        .expected()
        .any(|f| f.basis == Basis::Rule(r) && f.item == item && f.t == 1)
}

fn line(stmts: &Statements, name: &str) -> ItemRef {
    ItemRef::Line(stmts.item_named(name, &spec()).unwrap())
}

fn metric(id: &str) -> ItemRef {
    ItemRef::Metric(spec().metric_index(id).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn flags_a_move_of_exactly_fifteen_percent_and_not_a_hair_below(cents in 10_000u64..100_000_000, down in any::<bool>()) {
        let prev = Num::new(cents.into(), 100u32.into());
        let factor = parse_decimal(if down { "0.85" } else { "1.15" }).unwrap();
        let exact = &prev * &factor;
        let hair = parse_decimal("0.0001").unwrap();
        let below = if down { &exact + &hair } else { &exact - &hair };
        for (x, expect) in [(exact, true), (below, false)] {
            let src = two_year_source(&[("deferred_revenue", &show(&prev, 2), &show(&x, 4))]);
            let (stmts, truth) = truth_of(&src);
            prop_assert_eq!(fires(&truth, "yoy_move", line(&stmts, "deferred_revenue")), expect);
        }
    }

    #[test]
    fn flags_an_operating_margin_move_of_exactly_two_points(r1 in 1_000u32..1_000_000, r2 in 1_000u32..1_000_000, m in 0u32..5000) {
        // OM1 = m/10^4, OM2 = OM1 + 0.02 exactly; then one ten-thousandth of a unit less.
        let om1 = Num::new(m.into(), 10_000u32.into());
        let om2 = &om1 + parse_decimal("0.02").unwrap();
        let oi1 = Num::from_integer(r1.into()) * &om1;
        let oi2 = Num::from_integer(r2.into()) * &om2;
        let less = &oi2 - parse_decimal("0.0001").unwrap();
        for (x, expect) in [(oi2.clone(), true), (less, false)] {
            let src = two_year_source(&[
                ("revenue", &r1.to_string(), &r2.to_string()),
                ("operating_income", &show(&oi1, 6), &show(&x, 6)),
                ("cost_of_revenue", "0", "0"),
                ("gross_profit", &r1.to_string(), &r2.to_string()),
            ]);
            let (_, truth) = truth_of(&src);
            prop_assert_eq!(fires(&truth, "operating_margin_move", metric("operating_margin")), expect);
        }
    }

    #[test]
    fn flags_receivables_outgrowing_revenue_by_exactly_ten_points(ar in 100u32..1_000_000, g in 0u32..50) {
        // revenue grows g %, receivables g + 10 % exactly; then a hair less.
        let r2 = Num::from_integer(1000.into()) * (Num::from_integer(100.into()) + Num::from_integer(g.into())) / Num::from_integer(100.into());
        let ar1 = Num::from_integer(ar.into());
        let ar2 = &ar1 * (Num::from_integer(110.into()) + Num::from_integer(g.into())) / Num::from_integer(100.into());
        let less = &ar2 - parse_decimal("0.0001").unwrap();
        for (x, expect) in [(ar2.clone(), true), (less, false)] {
            let src = two_year_source(&[
                ("revenue", "1000", &show(&r2, 4)),
                ("cost_of_revenue", "0", "0"),
                ("gross_profit", "1000", &show(&r2, 4)),
                ("accounts_receivable", &ar.to_string(), &show(&x, 4)),
            ]);
            let (_, truth) = truth_of(&src);
            prop_assert_eq!(fires(&truth, "receivables_vs_revenue", metric("receivables_growth")), expect);
        }
    }

    // |x| < 10^4 keeps the contract's 1e-9·|x| slack below two units of the 6th decimal.
    #[test]
    fn a_value_rounded_half_up_always_passes_and_two_units_off_fails(num in -10_000_000i64..10_000_000, den in 1_000i64..100_000, d in 0u32..6) {
        let x = Num::new(num.into(), den.into());
        let printed = parse_number(&show(&x, d)).unwrap();
        prop_assert_eq!(judge(&x, &printed, &vouch::numbers::one()).agreement, Agreement::Pass);
        // Two units off is at least 1.5 units from the truth; it fails when the contract's
        // 1e-9·|x| slack is under half a unit (|x|·10^(d−9) < 0.5; -8815058/1044 at 5 decimals
        // has 0.84 units of slack, so 1.56 units off only warns, as §7 says).
        prop_assume!((num.unsigned_abs() as f64 / den as f64) * 10f64.powi(d as i32 - 9) < 0.5);
        let off = parse_number(&show(&(&printed.value + printed.unit() * Num::from_integer(2.into())), d)).unwrap();
        prop_assert_eq!(judge(&x, &off, &vouch::numbers::one()).agreement, Agreement::Fail);
    }
}

#[test]
fn integer_identity_off_by_one_is_consistent_and_off_by_two_is_not() {
    let ok = two_year_source(&[("total_assets", "301", "300")]);
    assert!(read_source(&ok).problems.is_empty());
    let bad = two_year_source(&[("total_assets", "302", "300")]);
    let problems = read_source(&bad).problems;
    assert!(
        matches!(
            problems.as_slice(),
            [vouch::source::Problem::Identity { year: 2021, .. }]
        ),
        "{problems:?}"
    );
}

#[test]
fn a_negative_base_growth_is_not_meaningful_and_either_variant_is_accepted() {
    let src = two_year_source(&[("net_income", "-100", "-50")]);
    let (_, truth) = truth_of(&src);
    let m = spec().metric_index("cash_conversion").unwrap();
    assert!(truth.metrics[m].not_meaningful[1]);
    let ni = truth
        .expected()
        .find(|f| f.changes[0] == parse_decimal("0.5").unwrap())
        .expect("net income moved +50 % on an absolute base");
    assert!(
        ni.changes.contains(&parse_decimal("-0.5").unwrap()),
        "the signed base is accepted too"
    );
}

fn metrics_csv_as(layout: &str) -> String {
    let wide = northstar_text("calculated_metrics.csv");
    let rows: Vec<Vec<String>> = wide
        .lines()
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect();
    let header = &rows[0];
    match layout {
        "long" => {
            let mut out = vec!["fiscal_year,metric_name,value,note".to_string()];
            for r in &rows[1..] {
                for (c, h) in header.iter().enumerate().skip(1) {
                    if !r[c].is_empty() {
                        out.push(format!("{},{},{},x", r[0], h, r[c]));
                    }
                }
            }
            out.join("\n") + "\n"
        }
        "transposed" => {
            let mut out = vec![format!(
                "Metric,{}",
                rows[1..]
                    .iter()
                    .map(|r| format!("FY{}", r[0]))
                    .collect::<Vec<_>>()
                    .join(",")
            )];
            for (c, h) in header.iter().enumerate().skip(1) {
                out.push(format!(
                    "{h},{}",
                    rows[1..]
                        .iter()
                        .map(|r| r[c].clone())
                        .collect::<Vec<_>>()
                        .join(",")
                ));
            }
            out.join("\n") + "\n"
        }
        "percent" => {
            let ratio = [
                "revenue_growth",
                "gross_margin",
                "operating_margin",
                "net_margin",
                "roa",
                "roe",
                "fcf_margin",
                "receivables_growth",
                "inventory_growth",
            ];
            let mut out = Vec::new();
            for (i, r) in rows.iter().enumerate() {
                let cells: Vec<String> = r
                    .iter()
                    .enumerate()
                    .map(|(c, v)| {
                        if i == 0 {
                            if ratio.contains(&header[c].as_str()) {
                                format!("{} (%)", v.replace('_', " "))
                            } else {
                                v.clone()
                            }
                        } else if ratio.contains(&header[c].as_str()) && !v.is_empty() {
                            let p = parse_number(v).unwrap();
                            let pct = show(
                                &(p.value * Num::from_integer(100.into())),
                                (p.decimals - 2).max(0) as u32,
                            );
                            if c % 2 == 0 {
                                format!("{pct}%")
                            } else {
                                pct
                            }
                        } else {
                            v.clone()
                        }
                    })
                    .collect();
                out.push(cells.join(","));
            }
            out.join("\n") + "\n"
        }
        _ => unreachable!(),
    }
}

#[test]
fn long_transposed_and_percent_layouts_of_the_good_metrics_pass() {
    for layout in ["long", "transposed", "percent"] {
        let csv = metrics_csv_as(layout);
        let report = verify_northstar(with_file(
            northstar_files(),
            "calculated_metrics.csv",
            csv.clone(),
        ));
        let bad: Vec<_> = report
            .findings
            .iter()
            .filter(|f| f.family() == "metrics" && f.status >= Status::Warn)
            .collect();
        assert!(bad.is_empty(), "{layout}:\n{csv}\n{}", dump(&report));
    }
}

#[test]
fn a_value_error_in_a_transposed_layout_names_the_fy_column() {
    let csv = metrics_csv_as("transposed").replace("0.7156", "0.7516");
    let report = verify_northstar(with_file(northstar_files(), "calculated_metrics.csv", csv));
    let f = report
        .findings
        .iter()
        .find(|f| f.id.as_str() == "metrics.value")
        .expect("metrics.value");
    assert_eq!(f.location.column.as_deref(), Some("FY2022"));
    assert_eq!(f.location.year, Some(2022));
    let n = f.number.as_ref().unwrap();
    assert_eq!(n.printed, "0.7516");
    assert_eq!(n.variant.as_deref(), Some("canonical"));
}

#[test]
fn real_statements_from_10k_filings_read_cleanly_and_oracle_is_faulty() {
    let path = |n: &str| root().join("fixtures/real").join(n);
    for ok in ["adobe.csv", "microsoft.csv"] {
        let s = Statements::read_path(&path(ok), &spec()).unwrap();
        assert!(
            s.problems
                .iter()
                .all(|p| matches!(p, vouch::source::Problem::Magnitude { .. })),
            "{ok}: {:?}",
            s.problems
        );
    }
    let oracle = Statements::read_path(&path("oracle.csv"), &spec()).unwrap();
    assert_eq!(oracle.facts().numeric_values_valid, Some(false));
    assert!(oracle.problems.iter().any(|p| matches!(p, vouch::source::Problem::NonNumeric { header, .. } if header == "total_liabilities")));
}

fn python3() -> Option<std::path::PathBuf> {
    let ok = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then(|| "python3".into())
}

/// Run the Northstar script on a source and return the generated files plus the script.
fn run_script(source: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let script = northstar_bundle_dir().join("analyze_financials.py");
    let status = std::process::Command::new("python3")
        .arg(&script)
        .arg("--input")
        .arg(source)
        .arg("--outdir")
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success(), "script failed on {}", source.display());
    let mut files = read_dir_files(&out);
    files.push((
        "analyze_financials.py".into(),
        std::fs::read(script).unwrap(),
    ));
    files
}

#[test]
fn the_northstar_script_regenerates_its_bundle_byte_for_byte() {
    if python3().is_none() {
        eprintln!("python3 not found: skipping");
        return;
    }
    let generated = run_script(&northstar_source_path());
    let committed = northstar_files();
    assert_eq!(generated.len(), committed.len());
    for (name, bytes) in &generated {
        let c = committed
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("{name} not committed"));
        assert!(c.1 == *bytes, "{name} differs from the script's output");
    }
}

#[test]
fn bundles_generated_from_real_10k_statements_are_accepted() {
    if python3().is_none() {
        eprintln!("python3 not found: skipping");
        return;
    }
    for company in ["adobe.csv", "microsoft.csv"] {
        let src = root().join("fixtures/real").join(company);
        let files = run_script(&src);
        let text = std::fs::read_to_string(&src).unwrap();
        let report = verify_files(files, company, &text);
        assert_eq!(
            report.verdict(),
            vouch::Verdict::Accept,
            "{company}:\n{}",
            dump(&report)
        );
    }
}

/// §1: a column that is not required and holds a non-numeric cell is ignored (info), a known
/// optional column too (`inventory` with `n/a`); a required one with the same cell makes the
/// source faulty.
#[test]
fn a_non_numeric_cell_in_an_optional_column_ignores_the_column_and_in_a_required_one_fails() {
    use vouch::source::Problem;
    let text = northstar_source_text();
    let mut lines: Vec<Vec<String>> = text
        .lines()
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect();
    let col = |name: &str| lines[0].iter().position(|h| h == name).unwrap();
    let (inv, ni) = (col("inventory"), col("net_income"));
    let read = |lines: &Vec<Vec<String>>| {
        let csv: String = lines.iter().map(|l| l.join(",") + "\n").collect();
        vouch::source::Statements::read_bytes("s.csv", "s.csv", csv.as_bytes(), &spec()).unwrap()
    };
    lines[2][inv] = "n/a".into();
    let s = read(&lines);
    assert!(
        s.problems.iter().any(|p| matches!(p, Problem::IgnoredColumn { header, cell } if header == "inventory" && cell == "n/a")),
        "{:?}",
        s.problems
    );
    assert!(
        !s.problems
            .iter()
            .any(|p| matches!(p, Problem::NonNumeric { .. })),
        "{:?}",
        s.problems
    );
    let inventory = spec().column_index("inventory").unwrap();
    assert!(s.item(inventory).is_none(), "the ignored column is absent");
    // "Every value is numeric" is then a matter of what the claim counts: vouch cannot tell.
    assert_eq!(s.facts().numeric_values_valid, None);
    lines[2][inv] = "4.6".into();
    lines[2][ni] = "n/a".into();
    let s = read(&lines);
    assert!(
        s.problems
            .iter()
            .any(|p| matches!(p, Problem::NonNumeric { header, .. } if header == "net_income")),
        "{:?}",
        s.problems
    );
}

#[test]
fn with_a_category_and_a_rule_column_the_rule_column_holds_the_rule() {
    // Northstar's flags with a `category` column before `rule`, and the receivables flag named
    // as agents name it: read through its rule, it is the receivables flag.
    let text = northstar_text("unusual_movements.csv");
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        let (year, rest) = line.split_once(',').unwrap();
        let (item, rest) = rest.split_once(',').unwrap();
        let item = if item == "receivables_growth" {
            "receivables_growth_vs_revenue_growth"
        } else {
            item
        };
        let category = if i == 0 {
            "category"
        } else {
            "earnings_quality"
        };
        out.push_str(&format!("{year},{item},{category},{rest}\n"));
    }
    let r = verify_northstar(with_file(
        northstar_files(),
        "unusual_movements.csv",
        out.into_bytes(),
    ));
    let problems: Vec<String> = r
        .findings
        .iter()
        .filter(|f| f.id.as_str().starts_with("movements.") && f.status >= Status::Warn)
        .map(|f| format!("{} {}", f.id.as_str(), f.message))
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_flag_on_a_quantity_the_contract_does_not_define_is_not_checked_but_an_unknown_name_fails() {
    // `implied_operating_expenses` (a word of `memo.undefined_quantities`): vouch does not
    // recompute it, so its flag is an unchecked extra (info), never a failure.
    let with_row = |item: &str| {
        let mut text = northstar_text("unusual_movements.csv");
        text.push_str(&format!("2024,{item},yoy_move,0.3180\n"));
        verify_northstar(with_file(
            northstar_files(),
            "unusual_movements.csv",
            text.into_bytes(),
        ))
    };
    let r = with_row("implied_operating_expenses");
    assert!(
        !r.findings
            .iter()
            .any(|f| f.id.as_str().starts_with("movements.") && f.status >= Status::Warn),
        "{}",
        dump(&r)
    );
    assert!(r
        .findings
        .iter()
        .any(|f| f.id.as_str() == "movements.extra_flag"
            && f.message.contains("implied_operating_expenses")));
    // A name that is neither an item, a metric nor such a quantity still fails.
    let r = with_row("widget_count");
    assert!(
        r.findings
            .iter()
            .any(|f| f.id.as_str() == "movements.unknown_item" && f.status == Status::Fail),
        "{}",
        dump(&r)
    );
}

#[test]
fn fiscal_year_labels_in_the_source_year_column_are_their_years() {
    // `FY2021` … in the year column: the user's copy names its years as plainly as `2021`.
    let text = northstar_source_text();
    let mut labelled = String::new();
    for (i, line) in text.lines().enumerate() {
        if i == 0 {
            labelled.push_str(line);
        } else {
            labelled.push_str(&format!("FY{line}"));
        }
        labelled.push('\n');
    }
    let name = "northstar_cloud_financial_statements.csv";
    let r = verify_files(northstar_files(), name, &labelled);
    assert_eq!(r.verdict(), vouch::Verdict::Accept, "{}", dump(&r));
    // A label that is no year still fails.
    let bad = labelled.replacen("FY2023", "FYQ3", 1);
    let r = verify_files(northstar_files(), name, &bad);
    assert!(
        r.findings
            .iter()
            .any(|f| f.id.as_str() == "source.year_invalid"),
        "{}",
        dump(&r)
    );
}
