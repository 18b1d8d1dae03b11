//! The command line: exit codes, stdout/stderr discipline, formats.

use crate::support::*;
use std::process::Command;

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

fn good_args() -> (String, String) {
    (
        northstar_bundle_dir().display().to_string(),
        northstar_source_path().display().to_string(),
    )
}

#[test]
fn the_good_bundle_exits_zero_and_says_accept() {
    let (b, s) = good_args();
    let (code, out, err) = vouch(&["verify", &b, "--source", &s]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.lines().last().unwrap().starts_with("accept: "), "{out}");
    // One coverage line per artifact whose figures were traced (§9).
    assert!(
        out.contains("coverage: investment_analysis.md: ")
            && out.contains(" numbers traced to the source, 0 contradicted, ")
            && out.contains("coverage: financial_trends.svg: 20 of 20 plotted values traced"),
        "{out}"
    );
    assert!(err.is_empty());
}

#[test]
fn a_defective_bundle_exits_one_and_names_its_check() {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in northstar_files() {
        std::fs::write(dir.path().join(&name), bytes).unwrap();
    }
    let m = dir.path().join("calculated_metrics.csv");
    let text = std::fs::read_to_string(&m)
        .unwrap()
        .replace("0.7156", "0.7166");
    std::fs::write(&m, text).unwrap();
    let (_, s) = good_args();
    let (code, out, _) = vouch(&["verify", dir.path().to_str().unwrap(), "--source", &s]);
    assert_eq!(code, 1);
    assert!(out.contains("error[metrics.value]: calculated_metrics.csv: line 3, row 2, column `gross_margin`, year 2022"), "{out}");
    assert!(
        out.contains(
            "printed 0.7166, interval [0.716550, 0.716650], recomputed 0.7156202, k = 9.80"
        ),
        "{out}"
    );
    assert!(
        out.contains("formula: gross_profit / revenue (variant canonical)"),
        "{out}"
    );
    assert!(out.lines().last().unwrap().starts_with("reject: "));
}

#[test]
fn json_output_is_versioned_and_quiet_on_stderr() {
    let (b, s) = good_args();
    let (code, out, err) = vouch(&["verify", &b, "--source", &s, "--format", "json"]);
    assert_eq!(code, 0);
    assert!(err.is_empty());
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["verdict"], "accept");
    assert_eq!(v["schema_version"], 2);
    let checks = v["checks"].as_array().unwrap();
    for c in checks {
        let reexecute = c["id"].as_str().unwrap().starts_with("script.reproducible");
        match c["status"].as_str().unwrap() {
            "pass" | "info" => assert!(!reexecute, "{c}"),
            "skipped" => {
                assert!(reexecute, "{c}");
                assert_eq!(c["reason"], "`--reexecute` was not asked");
            }
            other => panic!("{other}: {c}"),
        }
    }
    assert_eq!(v["summary"]["checks"]["skipped"], 2);
    assert_eq!(v["artifacts"].as_array().unwrap().len(), 6);
    let memo = &v["coverage"]["investment_analysis.md"];
    assert_eq!(memo["contradicted"], 0);
    assert!(memo["verified"].as_u64().unwrap() > 100, "{memo}");
}

#[test]
fn bad_usage_and_unreadable_inputs_exit_two_with_one_line() {
    let (b, s) = good_args();
    for args in [
        vec!["verify", b.as_str()],
        vec!["verify", b.as_str(), "--source", "/nonexistent.csv"],
        vec!["verify", "/nonexistent-bundle", "--source", s.as_str()],
        vec![
            "verify",
            b.as_str(),
            "--source",
            s.as_str(),
            "--spec",
            "/nonexistent.toml",
        ],
        vec![
            "verify",
            b.as_str(),
            "--source",
            s.as_str(),
            "--format",
            "yaml",
        ],
    ] {
        let (code, out, err) = vouch(&args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(out.is_empty(), "{args:?}");
        assert!(!err.trim().is_empty(), "{args:?}");
    }
    let (code, _, err) = vouch(&["verify", &b, "--source", &b]);
    assert_eq!(code, 2);
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn output_file_receives_the_report() {
    let (b, s) = good_args();
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("r.json");
    let (code, out, _) = vouch(&[
        "verify",
        &b,
        "--source",
        &s,
        "-f",
        "json",
        "-o",
        out_path.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    assert!(out.is_empty());
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_path).unwrap()).unwrap();
    assert_eq!(v["verdict"], "accept");
}

#[test]
fn a_faulty_source_says_so_plainly() {
    let (b, _) = good_args();
    let oracle = root().join("fixtures/real/oracle.csv");
    let (code, out, _) = vouch(&["verify", &b, "--source", oracle.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(out.contains("the source data itself is faulty"), "{out}");
}

#[test]
fn markdown_and_junit_reports_render_the_failures() {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in northstar_files() {
        std::fs::write(dir.path().join(&name), bytes).unwrap();
    }
    let m = dir.path().join("analysis_run.json");
    let text = std::fs::read_to_string(&m)
        .unwrap()
        .replace("\"row_count\": 5", "\"row_count\": 4");
    std::fs::write(&m, text).unwrap();
    let (_, s) = good_args();
    let (code, md, _) = vouch(&[
        "verify",
        dir.path().to_str().unwrap(),
        "--source",
        &s,
        "-f",
        "markdown",
    ]);
    assert_eq!(code, 1);
    assert!(
        md.contains("**reject**") && md.contains("| `manifest.row_count` | fail | 1 |"),
        "{md}"
    );
    assert!(md.contains("<details>"));
    let (code, xml, _) = vouch(&[
        "verify",
        dir.path().to_str().unwrap(),
        "--source",
        &s,
        "-f",
        "junit",
    ]);
    assert_eq!(code, 1);
    let mut reader = quick_xml::Reader::from_str(&xml);
    let mut failures = Vec::new();
    let mut cases = 0;
    loop {
        match reader.read_event().expect("well-formed JUnit XML") {
            quick_xml::events::Event::Eof => break,
            quick_xml::events::Event::Start(e) | quick_xml::events::Event::Empty(e) => {
                if e.name().as_ref() == b"testcase" {
                    cases += 1;
                }
                if e.name().as_ref() == b"failure" {
                    let ty = e.try_get_attribute("type").unwrap().unwrap();
                    failures.push(String::from_utf8(ty.value.to_vec()).unwrap());
                }
            }
            _ => {}
        }
    }
    assert_eq!(failures, vec!["manifest.row_count"]);
    assert_eq!(cases, vouch::report::registry::all().len());
}

#[test]
fn checks_that_did_not_run_are_skipped_with_their_reason_in_every_format() {
    // The chart deleted: every svg.* check but none other is skipped; a non-UTF-8 metrics file:
    // metrics.* past the unreadable finding, and the consistency checks that compare it.
    let dir = bundle_dir();
    std::fs::remove_file(dir.path().join("financial_trends.svg")).unwrap();
    std::fs::write(
        dir.path().join("calculated_metrics.csv"),
        b"year,revenue\n2025,\xff\n",
    )
    .unwrap();
    let b = dir.path().to_str().unwrap().to_string();
    let (_, s) = good_args();
    let run = |format: &str| {
        let (code, out, _) = vouch(&["verify", &b, "--source", &s, "--format", format]);
        assert_eq!(code, 1, "{out}");
        out
    };
    let v: serde_json::Value = serde_json::from_str(&run("json")).unwrap();
    let status = |id: &str| -> (String, String) {
        let c = v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .unwrap_or_else(|| panic!("{id}"));
        (
            c["status"].as_str().unwrap().into(),
            c["reason"].as_str().unwrap_or("").into(),
        )
    };
    assert_eq!(
        status("svg.fidelity"),
        ("skipped".into(), "`financial_trends.svg` is missing".into())
    );
    assert_eq!(status("svg.script").0, "skipped");
    assert_eq!(status("metrics.unreadable").0, "fail");
    assert_eq!(
        status("metrics.value"),
        (
            "skipped".into(),
            "not reached: `metrics.unreadable` failed".into()
        )
    );
    assert_eq!(status("consistency.kpi_vs_metrics").0, "skipped");
    assert_eq!(status("memo.missing_section").0, "pass");
    let junit = run("junit");
    assert!(
        junit.contains(
            r#"name="svg.fidelity"><skipped message="`financial_trends.svg` is missing"/>"#
        ),
        "{junit}"
    );
    let human = run("human");
    assert!(
        human.contains("skipped") && human.contains("`financial_trends.svg` is missing"),
        "{human}"
    );
    let md = run("markdown");
    assert!(
        md.contains("Skipped (`financial_trends.svg` is missing)"),
        "{md}"
    );
}

#[test]
fn a_source_copy_named_otherwise_is_one_finding_with_a_hint_or_none_with_source_name() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("my_copy.csv");
    std::fs::copy(
        root().join("fixtures/northstar/northstar_cloud_financial_statements.csv"),
        &copy,
    )
    .unwrap();
    let (b, _) = good_args();
    let c = copy.to_str().unwrap();
    let (code, out, _) = vouch(&["verify", &b, "--source", c, "--format", "json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let failing: Vec<&str> = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "fail")
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    // Not eight memo.unknown_file besides: the memo's citations of the manifest's name count as
    // citations of the source.
    assert_eq!(failing, ["manifest.input_filename"], "{out}");
    assert!(out.contains("--source-name"), "{out}");
    let (code, out, _) = vouch(&[
        "verify",
        &b,
        "--source",
        c,
        "--source-name",
        "northstar_cloud_financial_statements.csv",
    ]);
    assert_eq!(code, 0, "{out}");
    let (code, _, err) = vouch(&["verify", &b, "--source", c, "--source-name", "../x.csv"]);
    assert_eq!(code, 2);
    assert!(err.contains("plain file name"), "{err}");
}
