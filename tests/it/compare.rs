//! `vouch compare`: the decision on synthetic run sets, the paired design, error runs, results
//! files read back, the false-alarm rate over many seeds, and the command line.

use std::io::Write as _;
use std::process::Command;
use vouch::audit::results::CheckOutcome;
use vouch::audit::{CheckRow, RunResult, RunVerdict};
use vouch::compare::{compare, render, Change, Design, Test};

const CHECKS: [&str; 5] = [
    "manifest.schema",
    "memo.claims",
    "metrics.value",
    "movements.flags",
    "svg.axes",
];

/// A verified run whose `failing` checks failed (and all others passed).
fn run(id: usize, source: Option<&str>, trial: Option<u32>, failing: &[&str]) -> RunResult {
    let verdict = if failing.is_empty() {
        RunVerdict::Accept
    } else {
        RunVerdict::Reject
    };
    RunResult {
        run_id: format!("run_{id:05}"),
        path: format!("runs/run_{id:05}"),
        label: Some("v1".into()),
        trial,
        model: Some("model-x".into()),
        source_file: Some("statements.csv".into()),
        source_sha256: source.map(str::to_string),
        verdict,
        error: None,
        checks: CHECKS
            .iter()
            .map(|&c| {
                let fail = failing.contains(&c);
                CheckOutcome {
                    check: c.to_string(),
                    status: if fail { "fail" } else { "pass" }.into(),
                    findings: u32::from(fail),
                    message: fail.then(|| format!("{c} failed")),
                }
            })
            .collect(),
        first_pass: Some(verdict),
        repair_rounds: Some(0),
    }
}

fn error_run(id: usize) -> RunResult {
    RunResult {
        verdict: RunVerdict::Error,
        error: Some("source sha256 does not match run.json".into()),
        checks: Vec::new(),
        first_pass: Some(RunVerdict::Error),
        ..run(id, None, None, &[])
    }
}

/// `n` independent runs (no pairing key) of which the first `failing` fail `check`.
fn runs_failing(n: usize, failing: usize, check: &str, first_id: usize) -> Vec<RunResult> {
    (0..n)
        .map(|i| {
            let f: &[&str] = if i < failing { &[check] } else { &[] };
            run(first_id + i, None, None, f)
        })
        .collect()
}

#[test]
fn a_drop_from_90_to_75_percent_accept_over_200_runs_is_significantly_worse() {
    let baseline = runs_failing(200, 20, "memo.claims", 0);
    let candidate = runs_failing(200, 50, "memo.claims", 1000);
    let c = compare(&baseline, &candidate, 0.05);
    assert!(matches!(c.design, Design::Independent { .. }));
    assert_eq!(c.baseline.accept.count, 180);
    assert_eq!(c.candidate.accept.count, 150);
    assert_eq!(c.accept.test, Test::FisherExact);
    // scipy.stats.fisher_exact([[180, 20], [150, 50]]) = 0.00011278172795779362
    assert!((c.accept.p - 0.00011278172795779362).abs() < 1e-12);
    // Family: accept + memo.claims (the other checks never failed): Holm doubles the smallest.
    assert_eq!(c.family_size, 2);
    assert!((c.accept.p_adjusted - 2.0 * 0.00011278172795779362).abs() < 1e-12);
    assert_eq!(c.accept.change, Change::Worse);
    assert_eq!(c.checks[0].endpoint, "memo.claims");
    assert_eq!(c.checks[0].change, Change::Worse);
    assert!(c.checks[1..].iter().all(|d| !d.in_family && d.p == 1.0));
    assert_eq!(c.exit_code(), 1);
}

#[test]
fn equal_rates_are_not_worse() {
    let baseline = runs_failing(200, 20, "memo.claims", 0);
    let candidate = runs_failing(200, 20, "memo.claims", 1000);
    let c = compare(&baseline, &candidate, 0.05);
    assert_eq!(c.accept.p, 1.0);
    assert_eq!(c.accept.change, Change::Same);
    assert_eq!(c.exit_code(), 0);
}

#[test]
fn a_significant_improvement_is_not_a_regression() {
    let baseline = runs_failing(200, 50, "memo.claims", 0);
    let candidate = runs_failing(200, 20, "memo.claims", 1000);
    let c = compare(&baseline, &candidate, 0.05);
    assert_eq!(c.accept.change, Change::Better);
    assert_eq!(c.checks[0].change, Change::Better);
    assert_eq!(c.exit_code(), 0);
}

#[test]
fn a_single_check_regression_fails_the_comparison_even_when_accept_rate_is_unchanged() {
    // Same number of rejected runs, but the candidate's rejections all come from one check.
    let baseline: Vec<RunResult> = (0..300)
        .map(|i| {
            let f: &[&str] = match i % 10 {
                0 => &["metrics.value"],
                1 => &["svg.axes"],
                _ => &[],
            };
            run(i, None, None, f)
        })
        .collect();
    let candidate = runs_failing(300, 60, "memo.claims", 1000);
    let c = compare(&baseline, &candidate, 0.05);
    assert_eq!(c.accept.change, Change::Same);
    let memo = c
        .checks
        .iter()
        .find(|d| d.endpoint == "memo.claims")
        .unwrap();
    assert_eq!(memo.change, Change::Worse);
    assert_eq!(c.exit_code(), 1);
    // Fewer failures of the other two checks are improvements, not regressions.
    assert_eq!(c.improvements().len(), 2);
}

#[test]
fn runs_with_the_same_source_and_trial_on_both_sides_are_paired_and_use_mcnemar() {
    let sha = "ab".repeat(32);
    let side = |fail_every: u32, first_id: usize| -> Vec<RunResult> {
        (0..200u32)
            .map(|t| {
                let f: &[&str] = if t % fail_every == 0 {
                    &["memo.claims"]
                } else {
                    &[]
                };
                run(first_id + t as usize, Some(&sha), Some(t), f)
            })
            .collect()
    };
    // Baseline fails trials 0, 10, 20, … (20 of them), candidate 0, 4, 8, … (50); both fail
    // the multiples of 20 (10).
    let baseline = side(10, 0);
    let candidate = side(4, 1000);
    let c = compare(&baseline, &candidate, 0.05);
    assert_eq!(c.design, Design::Paired { pairs: 200 });
    assert_eq!(c.accept.test, Test::McNemarExact);
    // Accepted on the baseline only: multiples of 4 but not of 10 (50 − 10 = 40); on the
    // candidate only: multiples of 10 but not of 4 (20 − 10 = 10).
    assert_eq!(c.accept.discordant, Some((40, 10)));
    // statsmodels mcnemar([[150, 40], [10, 0]], exact=True).pvalue
    assert!(
        (c.accept.p - 2.3861331676755526e-05).abs() < 1e-12,
        "{}",
        c.accept.p
    );
    assert_eq!(c.accept.change, Change::Worse);
    assert_eq!(c.exit_code(), 1);
    // pass^k over the one input repeated 200 times, capped at k = 10.
    assert_eq!(c.baseline.inputs, 1);
    assert_eq!(c.baseline.pass_k.len(), 10);
    assert!((c.baseline.pass_k[0].1 - 0.9).abs() < 1e-12);
    // C(180, 2) / C(200, 2)
    assert!((c.baseline.pass_k[1].1 - (180.0 * 179.0) / (200.0 * 199.0)).abs() < 1e-12);
}

#[test]
fn runs_are_independent_when_pairing_keys_do_not_match_one_to_one() {
    let sha = "cd".repeat(32);
    let baseline: Vec<RunResult> = (0..10)
        .map(|t| run(t, Some(&sha), Some(t as u32), &[]))
        .collect();
    let candidate: Vec<RunResult> = (0..10)
        .map(|t| run(100 + t, Some(&sha), Some(t as u32 + 5), &[]))
        .collect();
    let c = compare(&baseline, &candidate, 0.05);
    assert!(matches!(c.design, Design::Independent { ref reason } if reason.contains("differ")));
    // Repeated trial index on one side.
    let repeated: Vec<RunResult> = (0..10).map(|t| run(t, Some(&sha), Some(0), &[])).collect();
    let c = compare(&repeated, &baseline, 0.05);
    assert!(matches!(c.design, Design::Independent { .. }));
}

#[test]
fn error_runs_count_as_not_accepted_and_become_an_endpoint() {
    let baseline = runs_failing(100, 0, "memo.claims", 0);
    let mut candidate = runs_failing(70, 0, "memo.claims", 1000);
    candidate.extend((0..30).map(|i| error_run(2000 + i)));
    let c = compare(&baseline, &candidate, 0.05);
    assert_eq!(c.candidate.errors, 30);
    assert_eq!(c.candidate.accept.count, 70);
    assert_eq!(c.candidate.accept.n, 100);
    assert_eq!(c.accept.change, Change::Worse);
    let errors = c.checks.iter().find(|d| d.endpoint == "run.error").unwrap();
    assert_eq!((errors.candidate.count, errors.candidate.n), (30, 100));
    assert_eq!(errors.change, Change::Worse);
    // Checks are judged over the runs that were verified.
    let memo = c
        .candidate
        .checks
        .iter()
        .find(|(id, _)| id == "memo.claims")
        .unwrap();
    assert_eq!(memo.1.n, 70);
}

/// splitmix64: a tiny seeded generator so the simulations are reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// `n` runs where each check fails independently with its rate.
fn simulated(rng: &mut Rng, n: usize, rates: &[f64; 5], first_id: usize) -> Vec<RunResult> {
    (0..n)
        .map(|i| {
            let failing: Vec<&str> = CHECKS
                .iter()
                .zip(rates)
                .filter(|(_, &r)| rng.next() < r)
                .map(|(&c, _)| c)
                .collect();
            run(first_id + i, None, None, &failing)
        })
        .collect()
}

#[test]
fn two_samples_of_the_same_rates_rarely_raise_a_false_alarm() {
    let rates = [0.02, 0.10, 0.05, 0.08, 0.03];
    let mut rng = Rng(7);
    let trials = 300;
    let alarms = (0..trials)
        .filter(|_| {
            let b = simulated(&mut rng, 200, &rates, 0);
            let c = simulated(&mut rng, 200, &rates, 1000);
            compare(&b, &c, 0.05).is_worse()
        })
        .count();
    // Holm controls the family-wise error at 5 % for two-sided tests, so one-sided alarms
    // stay at or under ~2.5 % (about 8 of 300); allow sampling noise.
    assert!(alarms <= 15, "{alarms} false alarms in {trials}");
}

#[test]
fn twenty_points_more_memo_failures_over_200_runs_is_flagged() {
    let base = [0.02, 0.10, 0.05, 0.08, 0.03];
    let worse = [0.02, 0.30, 0.05, 0.08, 0.03];
    let mut rng = Rng(11);
    let trials = 50;
    let caught = (0..trials)
        .filter(|_| {
            let b = simulated(&mut rng, 200, &base, 0);
            let c = simulated(&mut rng, 200, &worse, 1000);
            let cmp = compare(&b, &c, 0.05);
            cmp.checks
                .iter()
                .any(|d| d.endpoint == "memo.claims" && d.change == Change::Worse)
        })
        .count();
    assert!(caught >= 48, "caught {caught} of {trials}");
}

fn rows_of(runs: &[RunResult]) -> Vec<CheckRow> {
    runs.iter().flat_map(|r| r.rows()).collect()
}

fn write_jsonl(path: &std::path::Path, runs: &[RunResult]) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    for row in rows_of(runs) {
        serde_json::to_writer(&mut f, &row).unwrap();
        f.write_all(b"\n").unwrap();
    }
}

fn write_csv(path: &std::path::Path, runs: &[RunResult]) {
    let mut w = csv::Writer::from_path(path).unwrap();
    for row in rows_of(runs) {
        w.serialize(row).unwrap();
    }
    w.flush().unwrap();
}

fn mixed_runs() -> Vec<RunResult> {
    let mut runs = runs_failing(20, 5, "memo.claims", 0);
    runs[3].checks[2].status = "warn".into();
    runs[4].checks[0].message = Some("a message, with \"quotes\" | and a\nnewline".into());
    runs.push(error_run(99));
    runs
}

#[test]
fn results_files_read_back_into_the_same_runs() {
    let dir = tempfile::tempdir().unwrap();
    let runs = mixed_runs();
    let jsonl = dir.path().join("r.jsonl");
    write_jsonl(&jsonl, &runs);
    assert_eq!(vouch::compare::read_results(&jsonl).unwrap(), runs);
    let csv = dir.path().join("r.csv");
    write_csv(&csv, &runs);
    assert_eq!(vouch::compare::read_results(&csv).unwrap(), runs);
}

#[test]
fn a_bad_results_row_is_an_error_naming_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.jsonl");
    write_jsonl(&path, &runs_failing(2, 0, "memo.claims", 0));
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("{\"run_id\": \"x\"}\n");
    std::fs::write(&path, &text).unwrap();
    let e = vouch::compare::read_results(&path).unwrap_err().to_string();
    assert!(e.contains("line 11"), "{e}");
    let e = vouch::compare::read_results(&dir.path().join("r.parquet"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("parquet"), "{e}");
}

fn vouch(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_vouch"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_command_exits_one_on_a_regression_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let b = dir.path().join("baseline.jsonl");
    let c = dir.path().join("candidate.csv");
    write_jsonl(&b, &runs_failing(200, 20, "memo.claims", 0));
    write_csv(&c, &runs_failing(200, 50, "memo.claims", 1000));
    let (b, c) = (b.to_str().unwrap(), c.to_str().unwrap());

    let (code, out, err) = vouch(&["compare", b, c]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.is_empty(), "{err}");
    assert!(
        out.starts_with("worse: candidate is significantly worse on accept rate, memo.claims"),
        "{out}"
    );
    assert!(out.contains("accept rate 90.0% [85.1%, 93.4%]"), "{out}");

    let (code, out, _) = vouch(&["compare", b, c, "--format", "json"]);
    assert_eq!(code, 1);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["schema"], "vouch.compare");
    assert_eq!(doc["schema_version"], 1);
    assert_eq!(doc["verdict"], "worse");
    assert_eq!(doc["accept"]["change"], "worse");
    assert_eq!(doc["baseline"]["accept_rate"]["count"], 180);

    let (code, out, _) = vouch(&["compare", b, c, "--format", "markdown"]);
    assert_eq!(code, 1);
    assert!(out.starts_with("### vouch compare: Regression\n"), "{out}");
    assert!(
        out.contains("| **accept rate** | 90.0% | 75.0% | -15.0 pt |"),
        "{out}"
    );
    assert!(
        out.contains("<details>") && out.contains("</details>"),
        "{out}"
    );

    let (code, out, _) = vouch(&["compare", b, b]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.starts_with("not worse: no significant regression"),
        "{out}"
    );
}

#[test]
fn the_command_exits_two_with_one_line_on_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.jsonl");
    write_jsonl(&good, &runs_failing(5, 1, "memo.claims", 0));
    let good = good.to_str().unwrap();
    let garbage = dir.path().join("garbage.jsonl");
    std::fs::write(&garbage, "not json\n").unwrap();
    let empty = dir.path().join("empty.csv");
    std::fs::write(&empty, "").unwrap();
    let dir_arg = dir.path().to_str().unwrap();
    for (args, says) in [
        (vec!["compare", good, garbage.to_str().unwrap()], "line 1"),
        (
            vec!["compare", good, empty.to_str().unwrap()],
            "holds no runs",
        ),
        (vec!["compare", dir_arg, good], "holds no runs"),
        (vec!["compare", good, "missing.jsonl"], "cannot read"),
        (vec!["compare", good, "results.parquet"], "parquet"),
        (vec!["compare", good, good, "--alpha", "1.5"], "--alpha"),
    ] {
        let (code, out, err) = vouch(&args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

#[test]
fn renderers_show_the_same_verdict() {
    let baseline = runs_failing(200, 20, "memo.claims", 0);
    let candidate = runs_failing(200, 20, "memo.claims", 1000);
    let c = compare(&baseline, &candidate, 0.05);
    let names = render::Names {
        baseline: "a.jsonl",
        candidate: "b.jsonl",
    };
    assert!(render::human(&c, names).starts_with("not worse"));
    assert!(render::markdown(&c, names).starts_with("### vouch compare: No significant regression"));
    let doc: serde_json::Value = serde_json::from_str(&render::json(&c, names)).unwrap();
    assert_eq!(doc["verdict"], "not_worse");
    assert_eq!(doc["exit_code"], 0);
}

#[test]
fn too_few_runs_to_rule_out_the_minimum_drop_are_inconclusive_not_not_worse() {
    // 3 accepted runs against 2 rejected ones: a 100-point drop, yet not significant
    // (Fisher p = 0.1). That is not "not worse": exit 3, and the sentence says how many runs
    // would do.
    let c = compare(
        &runs_failing(3, 0, "memo.claims", 0),
        &runs_failing(2, 2, "memo.claims", 1000),
        0.05,
    );
    assert_eq!(c.accept.change, Change::Same);
    assert_eq!(c.exit_code(), 3);
    let names = render::Names {
        baseline: "a",
        candidate: "b",
    };
    let text = render::human(&c, names);
    assert!(
        text.starts_with("inconclusive: 3 and 2 runs cannot rule out a 10-point drop in the accept rate at alpha 0.05; about 71 runs per side can"),
        "{text}"
    );
    let json: serde_json::Value = serde_json::from_str(&render::json(&c, names)).unwrap();
    assert_eq!(json["verdict"], "inconclusive");
    assert_eq!(json["exit_code"], 3);
    // Enough runs at the same rate rule the drop out: not worse, exit 0.
    let c = compare(
        &runs_failing(2_000, 200, "memo.claims", 0),
        &runs_failing(2_000, 200, "memo.claims", 10_000),
        0.05,
    );
    assert_eq!(c.exit_code(), 0);
    // A smaller minimum effect needs more runs.
    let mut c = c;
    c.min_effect = 0.01;
    assert_eq!(c.exit_code(), 3);
}

mod html_page {
    use super::*;
    use crate::audit::{
        assert_inert_page, assert_proportion, assert_same_number, attribute_values, data_number,
        row_with,
    };
    use vouch::report::html::escape;

    const HOSTILE_CHECK: &str = "svg.<script>alert('x')</script>\"";

    /// 200 runs a side: the candidate fails memo.claims in 50 runs (the baseline in 20) and a
    /// check whose id holds markup in 30 (the baseline in 5).
    fn sides() -> (Vec<RunResult>, Vec<RunResult>) {
        let mut baseline = runs_failing(200, 20, "memo.claims", 0);
        let mut candidate = runs_failing(200, 50, "memo.claims", 1000);
        for (runs, failing) in [(&mut baseline, 5), (&mut candidate, 30)] {
            for (i, r) in runs.iter_mut().enumerate() {
                let c = r.checks.iter_mut().find(|c| c.check == "svg.axes").unwrap();
                c.check = HOSTILE_CHECK.to_string();
                if i >= 100 && i < 100 + failing {
                    c.status = "fail".into();
                    r.verdict = RunVerdict::Reject;
                }
            }
        }
        (baseline, candidate)
    }

    /// The text of an element's markup: tags dropped, the page's escapes undone.
    fn text_of(markup: &str) -> String {
        let mut out = String::new();
        for piece in markup.split('<') {
            out.push_str(piece.split_once('>').map_or(piece, |(_, t)| t));
        }
        out.replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&amp;", "&")
    }

    #[test]
    fn the_page_states_the_decision_and_plots_every_tested_difference() {
        let dir = tempfile::tempdir().unwrap();
        let (baseline, candidate) = sides();
        let b = dir.path().join("base \"<b>\".jsonl");
        let c = dir.path().join("cand.jsonl");
        write_jsonl(&b, &baseline);
        write_jsonl(&c, &candidate);
        let page_path = dir.path().join("compare.html");
        let (b, c) = (b.to_str().unwrap(), c.to_str().unwrap());
        let (code, out, err) = vouch(&[
            "compare",
            b,
            c,
            "--format",
            "html",
            "-o",
            page_path.to_str().unwrap(),
        ]);
        assert_eq!(code, 1, "{out}{err}");
        assert!(out.is_empty() && err.is_empty(), "{out}{err}");
        let page = std::fs::read_to_string(&page_path).unwrap();
        assert_inert_page(&page, "compare.html");
        assert!(attribute_values(&page, "href").is_empty());
        for id in [
            "<svg id=\"forest\"",
            "<p id=\"decision\"",
            "<svg id=\"accept-rates\"",
        ] {
            assert!(page.contains(id), "{id}");
        }
        assert!(page.contains(&escape(HOSTILE_CHECK)));
        assert!(page.contains("base &quot;&lt;b&gt;&quot;.jsonl"));

        // The decision and its reasoning are the human report's opening lines.
        let (_, human, _) = vouch(&["compare", b, c]);
        let mut lines = human.lines();
        let verdict = lines.next().unwrap().strip_prefix("worse: ").unwrap();
        let method = lines.next().unwrap().trim();
        let start = page.find("<p id=\"decision\">").unwrap();
        let end = start + page[start..].find("</p>").unwrap();
        let decision = text_of(&page[start..end]);
        let mut capital = method.chars();
        let method = capital.next().unwrap().to_uppercase().collect::<String>() + capital.as_str();
        assert_eq!(decision, format!("Worse: {verdict}. {method}."));
        assert!(verdict.contains(HOSTILE_CHECK), "{verdict}");

        // Every figure the page prints is the JSON document's.
        let (_, json, _) = vouch(&["compare", b, c, "--format", "json"]);
        let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
        let proportion = |markup: &str, v: &serde_json::Value| {
            assert_proportion(
                markup,
                v["count"].as_u64().unwrap(),
                v["n"].as_u64().unwrap(),
                v["rate"].as_f64().unwrap(),
                [
                    v["ci95"][0].as_f64().unwrap(),
                    v["ci95"][1].as_f64().unwrap(),
                ],
            )
        };
        for side in ["baseline", "candidate"] {
            let row = row_with(&page, &format!("class=\"{side}\""));
            proportion(row, &doc[side]["accept_rate"]);
        }
        let tested: Vec<&serde_json::Value> = std::iter::once(&doc["accept"])
            .chain(doc["checks"].as_array().unwrap())
            .filter(|d| d["endpoint"] == "accept" || d["in_family"] == true)
            .collect();
        assert_eq!(tested.len(), 3);
        // The forest plot has a row per tested endpoint, coloured by its change.
        let forest = &page[page.find("<svg id=\"forest\"").unwrap()..];
        let forest = &forest[..forest.find("</svg>").unwrap()];
        assert_eq!(forest.matches("<g class=\"row ").count(), tested.len());
        assert_eq!(
            forest.matches("<circle class=\"point\"").count(),
            tested.len()
        );
        assert!(forest.contains("class=\"zero\""));
        for d in tested {
            let endpoint = d["endpoint"].as_str().unwrap();
            let row = row_with(&page, &format!("data-endpoint=\"{}\"", escape(endpoint)));
            let cells: Vec<&str> = row.split("<td").skip(1).collect();
            proportion(cells[1], &d["baseline"]);
            proportion(cells[2], &d["candidate"]);
            let difference = d["difference"].as_f64().unwrap();
            assert_same_number(data_number(cells[3], "difference"), difference, cells[3]);
            let side = |s: &str| {
                vouch::compare::Proportion::new(
                    d[s]["count"].as_u64().unwrap(),
                    d[s]["n"].as_u64().unwrap(),
                )
            };
            let interval =
                vouch::compare::html::difference_interval(&side("baseline"), &side("candidate"))
                    .unwrap();
            assert!(interval.low <= difference && difference <= interval.high);
            assert_eq!(data_number(cells[3], "low"), interval.low);
            assert_eq!(data_number(cells[3], "high"), interval.high);
            assert!(
                cells[3].contains(&format!(
                    "{:+.1} pt [{:+.1}, {:+.1}]",
                    difference * 100.0,
                    interval.low * 100.0,
                    interval.high * 100.0
                )),
                "{}",
                cells[3]
            );
            let p_adjusted = d["p_adjusted"].as_f64().unwrap();
            assert_same_number(data_number(row, "p-adjusted"), p_adjusted, row);
            let change = d["change"].as_str().unwrap();
            assert!(row.starts_with(&format!("<tr class=\"{change}\"")), "{row}");
            assert!(
                forest.contains(&format!(
                    "<g class=\"row {change}\"><title>{}:",
                    escape(if endpoint == "accept" {
                        "accept rate"
                    } else {
                        endpoint
                    })
                )),
                "{endpoint}"
            );
        }
    }
}

/// Runs repaired by `vouch run --repair`: first pass and after repair side by side.
mod repair {
    use super::*;
    use crate::audit::repair::{
        assert_figures, repaired_runs, section, strip_rounds, vouch_at, wilson,
    };
    use crate::audit::{assert_inert_page, assert_proportion, row_with};

    const SIDE_BY_SIDE: &str = "\
first pass and after repair (vouch run --repair):
                baseline                        candidate
  first pass    1/3 = 33.3% [6.1%, 79.2%]       2/5 = 40.0% [11.8%, 76.9%]
  after repair  2/3 = 66.7% [20.8%, 93.9%]      4/5 = 80.0% [37.6%, 96.4%]
  repaired      2 runs, 1.50 rounds on average  3 runs, 1.67 rounds on average
  first-pass difference (candidate − baseline): +6.7 pt [-47.2, +52.5]; informational, not tested: the decision is on the final verdicts
";

    const SIDE_BY_SIDE_MARKDOWN: &str = "\
**First pass and after repair** (`vouch run --repair`):

| | baseline | candidate |
|---|---|---|
| first pass | 1/3 = 33.3% [6.1%, 79.2%] | 2/5 = 40.0% [11.8%, 76.9%] |
| after repair | 2/3 = 66.7% [20.8%, 93.9%] | 4/5 = 80.0% [37.6%, 96.4%] |
| repaired runs | 2 runs, 1.50 rounds on average | 3 runs, 1.67 rounds on average |

First-pass difference (candidate − baseline): +6.7 pt [-47.2, +52.5]; informational, not tested: the decision is on the final verdicts.
";

    #[test]
    fn first_pass_and_after_repair_side_by_side_for_labels_and_results_files() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        repaired_runs(dir);
        for label in ["v1", "v2"] {
            let out = format!("{label}.jsonl");
            let args = ["audit", &format!("runs/{label}"), "--no-cache", "-o", &out];
            let (code, _, err) = vouch_at(dir, &args);
            assert_eq!(code, 1, "{err}");
        }
        let compare = |sides: [&str; 2], format: &str| {
            let (code, out, err) = vouch_at(dir, &["compare", sides[0], sides[1], "-f", format]);
            assert!(err.is_empty(), "{err}");
            (code, out)
        };
        let labels = ["runs/v1", "runs/v2"];
        let files = ["v1.jsonl", "v2.jsonl"];
        let (code, human) = compare(labels, "human");
        // 3 runs against 5 cannot rule out a 10-point drop: inconclusive, as without repairs.
        assert_eq!(code, 3, "{human}");
        // The side-by-side figures follow the candidate's table, before the differences.
        let at = |text: &str| human.find(text).unwrap();
        assert!(at("\ncandidate runs/v2:") < at("\nfirst pass and after repair"));
        assert!(at("\nfirst pass and after repair") < at("\ndifferences"));
        assert_eq!(section(&human, "first pass and after repair"), SIDE_BY_SIDE);
        // The same runs as results files: the same report but for the sides' names.
        let (_, from_files) = compare(files, "human");
        assert_eq!(
            from_files
                .replace("v1.jsonl", "runs/v1")
                .replace("v2.jsonl", "runs/v2"),
            human
        );
        let (_, markdown) = compare(labels, "markdown");
        assert_eq!(
            section(&markdown, "**First pass and after repair**"),
            SIDE_BY_SIDE_MARKDOWN
                .split("\n\n")
                .next()
                .unwrap()
                .to_string()
                + "\n"
        );
        assert!(markdown.contains(SIDE_BY_SIDE_MARKDOWN), "{markdown}");

        let (_, json) = compare(files, "json");
        let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
        let repair = &doc["repair"];
        for (side, runs, first, after, repaired, mean) in [
            ("baseline", 3, 1, 2, 2, 1.5),
            ("candidate", 5, 2, 4, 3, 5.0 / 3.0),
        ] {
            let v = &repair[side];
            assert_eq!(v["runs"], runs, "{v}");
            assert_figures(&v["first_pass"], first, runs);
            assert_figures(&v["after_repair"], after, runs);
            assert_eq!(v["repaired_runs"], repaired, "{v}");
            assert_eq!(v["mean_repair_rounds"].as_f64(), Some(mean), "{v}");
            // After repair is the side's accept rate, which the decision is about.
            assert_eq!(v["after_repair"], doc[side]["accept_rate"]);
        }
        let difference = repair["first_pass_difference"].as_f64().unwrap();
        assert!(
            (difference - (0.4 - 1.0 / 3.0)).abs() < 1e-15,
            "{difference}"
        );
        let interval = vouch::compare::html::difference_interval(
            &vouch::compare::Proportion::new(1, 3),
            &vouch::compare::Proportion::new(2, 5),
        )
        .unwrap();
        let ci = repair["first_pass_difference_ci95"].as_array().unwrap();
        crate::audit::assert_same_number(ci[0].as_f64().unwrap(), interval.low, "low");
        crate::audit::assert_same_number(ci[1].as_f64().unwrap(), interval.high, "high");
        assert_eq!(repair["first_pass_tested"], false);
        assert_eq!(doc["exit_code"], 3);

        let (_, page) = compare(labels, "html");
        assert_inert_page(&page, "compare page");
        let table = &page[page.find("<table id=\"repair-table\"").unwrap()..];
        let table = &table[..table.find("</table>").unwrap()];
        for (side, runs, first, after, repaired, mean) in [
            ("baseline", 3, 1, 2, 2, "1.50"),
            ("candidate", 5, 2, 4, 3, "1.67"),
        ] {
            let row = row_with(table, &format!("class=\"{side}\""));
            let cells: Vec<&str> = row.split("<td").skip(1).collect();
            let rate = |k: u64| k as f64 / runs as f64;
            assert_proportion(cells[1], first, runs, rate(first), wilson(first, runs));
            assert_proportion(cells[2], after, runs, rate(after), wilson(after, runs));
            assert!(cells[3].contains(&format!(">{repaired}<")), "{row}");
            assert!(cells[4].contains(&format!(">{mean}<")), "{row}");
        }
        assert!(page.contains(
            "<p id=\"first-pass-difference\">First-pass difference (candidate − baseline): +6.7 pt [-47.2, +52.5]; informational, not tested: the decision is on the final verdicts. After repair is the accept rate.</p>"
        ));

        // The same runs recorded without `--repair`: the same decision, the reports without
        // the repair figures.
        strip_rounds(dir);
        let (plain_code, plain) = compare(labels, "human");
        assert_eq!(plain_code, code);
        assert_eq!(plain, human.replace(&format!("\n{SIDE_BY_SIDE}"), ""));
        let (_, plain) = compare(labels, "markdown");
        assert_eq!(
            plain,
            markdown.replace(&format!("\n{SIDE_BY_SIDE_MARKDOWN}"), "")
        );
        let (_, json) = compare(labels, "json");
        let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert!(doc.get("repair").is_none());
        let (_, plain) = compare(labels, "html");
        assert!(!plain.contains("repair"), "the page mentions repairs");
    }

    #[test]
    fn results_files_from_before_the_repair_columns_still_read() {
        // fixtures/cli holds results files written before `first_pass_verdict` and
        // `repair_rounds`: runs never repaired.
        for name in ["baseline-80.csv", "candidate-80-worse.csv"] {
            let path = crate::support::root().join("fixtures/cli").join(name);
            let header = std::fs::read_to_string(&path).unwrap();
            assert!(!header.lines().next().unwrap().contains("repair"), "{name}");
            let runs = vouch::compare::read_results(&path).unwrap();
            assert_eq!(runs.len(), 80, "{name}");
            for r in &runs {
                assert_eq!((r.first_pass, r.repair_rounds), (Some(r.verdict), Some(0)));
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let old = dir.path().join("old.jsonl");
        let row = |id: &str, verdict: &str, check: &str, extra: &str| {
            format!(
                r#"{{"run_id":"{id}","path":"runs/{id}","label":"v1","trial":0,"model":null,"source_file":"s.csv","source_sha256":"ab","verdict":"{verdict}","check":"{check}","family":"x","status":"pass","findings":0,"message":null{extra}}}"#
            )
        };
        let text = [
            row("a", "accept", "memo.x", ""),
            row("a", "accept", "svg.y", ""),
            row("b", "reject", "memo.x", ""),
        ]
        .join("\n");
        std::fs::write(&old, text).unwrap();
        let runs = vouch::compare::read_results(&old).unwrap();
        let got: Vec<_> = runs
            .iter()
            .map(|r| (r.verdict, r.first_pass, r.repair_rounds))
            .collect();
        use RunVerdict::{Accept, Reject};
        assert_eq!(
            got,
            [
                (Accept, Some(Accept), Some(0)),
                (Reject, Some(Reject), Some(0))
            ]
        );
        // Sides of old files only: nothing was repaired, so no repair figures.
        let c = compare(&runs, &runs, 0.05);
        assert!(!c.repaired());
        assert!(!render::human(
            &c,
            render::Names {
                baseline: "a",
                candidate: "b"
            }
        )
        .contains("first pass"));

        // With the columns: null is "not recorded"; rows of a run must agree; a value must be a
        // verdict.
        let new = dir.path().join("new.jsonl");
        let with = |fp: &str, n: &str| format!(r#","first_pass_verdict":{fp},"repair_rounds":{n}"#);
        std::fs::write(
            &new,
            [
                row("a", "accept", "memo.x", &with("null", "1")),
                row("a", "accept", "svg.y", &with("null", "1")),
            ]
            .join("\n"),
        )
        .unwrap();
        let runs = vouch::compare::read_results(&new).unwrap();
        assert_eq!((runs[0].first_pass, runs[0].repair_rounds), (None, Some(1)));
        for (second, says) in [
            (with("\"reject\"", "1"), "line 2: run `a` has first_pass_verdict and repair_rounds `null, 1` on an earlier row and `reject, 1` here"),
            (with("\"maybe\"", "1"), "line 2: unknown first_pass_verdict `maybe`"),
        ] {
            let text = [
                row("a", "accept", "memo.x", &with("null", "1")),
                row("a", "accept", "svg.y", &second),
            ]
            .join("\n");
            std::fs::write(&new, text).unwrap();
            let e = vouch::compare::read_results(&new).unwrap_err().to_string();
            assert!(e.contains(says), "{e}");
        }
    }
}
