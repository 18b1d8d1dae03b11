//! Table-driven defect fixtures: `fixtures/defects/<name>/` overlays the Northstar bundle with the
//! artifacts it holds (and `source.csv` replaces the source; `remove.txt` lists artifacts to drop),
//! and `expect.txt` lists `<status> <check id>` lines that verification must produce. Every
//! registered fail/warn check must be expected by at least one fixture.

use crate::support::*;
use std::collections::BTreeSet;
use vouch::report::{registry, Status};

struct Defect {
    name: String,
    expect: Vec<(Status, String)>,
    report: vouch::Report,
}

fn parse_status(s: &str) -> Status {
    match s {
        "fail" => Status::Fail,
        "warn" => Status::Warn,
        "info" => Status::Info,
        other => panic!("unknown status `{other}` in expect.txt"),
    }
}

fn run_all() -> Vec<Defect> {
    let dir = root().join("fixtures/defects");
    let mut out = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries.into_iter().filter(|p| p.is_dir()) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let expect_text = std::fs::read_to_string(path.join("expect.txt"))
            .unwrap_or_else(|_| panic!("{name}: expect.txt is required"));
        let expect: Vec<(Status, String)> = expect_text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(|l| {
                let (s, id) = l.split_once(char::is_whitespace).expect("`<status> <id>`");
                (parse_status(s), id.trim().to_string())
            })
            .collect();
        let mut files = northstar_files();
        let mut source = northstar_source_text();
        let mut source_name = "northstar_cloud_financial_statements.csv".to_string();
        for (fname, bytes) in read_dir_files(&path) {
            match fname.as_str() {
                "expect.txt" | "README.md" | "report.txt" => {}
                "remove.txt" => {
                    let text = String::from_utf8(bytes).unwrap();
                    for n in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
                        files.retain(|(f, _)| f != n);
                    }
                }
                "source_name.txt" => {
                    source_name = String::from_utf8(bytes).unwrap().trim().to_string()
                }
                "source.csv" => source = String::from_utf8(bytes).unwrap(),
                _ => files = with_file(files, &fname, bytes),
            }
        }
        let report = verify_files(files.clone(), &source_name, &source);
        assert_halves_agree(&files, &source_name, &source, &report);
        out.push(Defect {
            name,
            expect,
            report,
        });
    }
    out
}

#[test]
fn every_defect_fixture_produces_its_expected_findings() {
    let mut problems = Vec::new();
    for d in run_all() {
        for (status, id) in &d.expect {
            if !has(&d.report, id, *status) {
                problems.push(format!(
                    "{}: expected {} {} but got:\n{}\n",
                    d.name,
                    status.as_str(),
                    id,
                    dump(&d.report)
                ));
            }
        }
        if d.expect.iter().any(|(s, _)| *s == Status::Fail)
            && d.report.verdict() != vouch::Verdict::Reject
        {
            problems.push(format!("{}: expected a reject verdict", d.name));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every defect fixture's human report (with info findings) is pinned in its `report.txt`: a
/// new, missing or moved finding is a reviewed diff, not a silent pass (`expect.txt` only says
/// which ids must appear). `VOUCH_BLESS=1` rewrites them.
#[test]
fn every_defect_fixtures_report_is_pinned_exactly() {
    let style = vouch::report::human::Style {
        verbose: true,
        ..Default::default()
    };
    let mut differ = Vec::new();
    let defects = run_all();
    for d in &defects {
        let text = vouch::report::human::render(&d.report, &style);
        let path = root()
            .join("fixtures/defects")
            .join(&d.name)
            .join("report.txt");
        if std::env::var_os("VOUCH_BLESS").is_some() {
            std::fs::write(&path, &text).unwrap();
        }
        let pinned = std::fs::read_to_string(&path).unwrap_or_default();
        if pinned != text {
            differ.push(format!(
                "{}:\n--- pinned ---\n{pinned}\n--- now ---\n{text}",
                d.name
            ));
        }
    }
    assert!(
        differ.is_empty(),
        "{} of {} defect reports differ from their report.txt (VOUCH_BLESS=1 rewrites them; review the diff):\n{}",
        differ.len(),
        defects.len(),
        differ.join("\n")
    );
}

#[test]
fn every_check_has_a_fixture_that_triggers_it() {
    let mut covered: BTreeSet<String> = BTreeSet::new();
    for d in run_all() {
        for (_, id) in d.expect {
            covered.insert(id);
        }
    }
    // Checks whose trigger cannot be a committed file (e.g. a symlink or FIFO, or a size
    // limit) are exercised by generated cases in their own tests; list them here explicitly.
    let generated = [
        "bundle.symlink",
        "bundle.not_regular_file",
        "bundle.too_large",
        "bundle.unreadable",
        // `vouch verify --reexecute` needs python3 and bubblewrap, which the overlay harness
        // does not run; tests/it/hostile.rs covers them (skipping when either is missing).
        "script.reproducible",
        "script.reproducible_bytes",
        "script.reexecution_failed",
        "script.reexecuted",
    ];
    let missing: Vec<&str> = registry::all()
        .iter()
        .map(|c| c.id.as_str())
        .filter(|id| !covered.contains(*id) && !generated.contains(id))
        .collect();
    assert!(
        missing.is_empty(),
        "check ids with no defect fixture: {missing:?}"
    );
}

#[test]
fn the_northstar_bundle_passes_every_check() {
    let report = verify_northstar(northstar_files());
    let bad: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.status >= Status::Warn)
        .collect();
    assert!(bad.is_empty(), "{}", dump(&report));
    assert_eq!(report.verdict(), vouch::Verdict::Accept);
    assert!(report.families_not_checked().is_empty());
}

/// `docs/check-examples.md` (the examples of `vouch explain`) is what the defect fixtures
/// produce: for each check id, the human report's lines of its first finding on the fixture
/// named after it. `VOUCH_BLESS=1` rewrites it.
#[test]
fn the_explain_examples_are_the_defect_fixtures_findings() {
    let defects = run_all();
    let mut doc = String::from(
        "# Check examples\n\n\
         For each check id, the finding its defect fixture (`fixtures/defects/<id>/`) produces, as\n\
         the human report prints it. `vouch explain ID` shows it; generated by the test\n\
         `the_explain_examples_are_the_defect_fixtures_findings` (`VOUCH_BLESS=1` rewrites it).\n",
    );
    for def in registry::all() {
        let example = defects
            .iter()
            .filter(|d| {
                d.name == def.id.as_str() || d.name.starts_with(&format!("{}-", def.id.as_str()))
            })
            .find_map(|d| {
                d.report
                    .findings
                    .iter()
                    .find(|f| f.id.as_str() == def.id.as_str())
            });
        if let Some(f) = example {
            let text = format!(
                "{}{}",
                vouch::report::human::finding_head(f, false),
                vouch::report::human::finding_numbers(f)
            );
            doc.push_str(&format!(
                "\n## `{}`\n\n```text\n{text}```\n",
                def.id.as_str()
            ));
        }
    }
    assert_generated(
        "docs/check-examples.md",
        &doc,
        "VOUCH_BLESS=1 cargo nextest run -E 'test(explain_examples)'",
    );
}

/// Every defect fixture's JSON report, the Northstar bundle's and every agent bundle's, is valid
/// against `docs/schema/report.schema.json` (checked by the `jsonschema` Python package; CI
/// installs it in a venv and sets VOUCH_TEST_PYTHON).
#[test]
fn every_json_report_is_valid_against_the_published_schema() {
    let tmp = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    let mut reports: Vec<(String, vouch::Report)> =
        run_all().into_iter().map(|d| (d.name, d.report)).collect();
    reports.push((
        "northstar".into(),
        verify_files(
            northstar_files(),
            "northstar_cloud_financial_statements.csv",
            &northstar_source_text(),
        ),
    ));
    for (name, report) in &reports {
        let text = vouch::report::json::render(report);
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["schema_version"], 2, "{name}");
        let path = tmp.path().join(format!("{name}.json"));
        std::fs::write(&path, text).unwrap();
        files.push(path);
    }
    let python = std::env::var("VOUCH_TEST_PYTHON").unwrap_or_else(|_| "python3".into());
    let out = std::process::Command::new(&python)
        .arg(root().join("tests/validate_json_schema.py"))
        .arg(root().join("docs/schema/report.schema.json"))
        .args(&files)
        .output();
    let out = match out {
        Ok(o) if o.status.code() == Some(3) && std::env::var_os("VOUCH_CI").is_none() => {
            eprintln!("skipped: the jsonschema Python package is not installed for `{python}`");
            return;
        }
        Ok(o) => o,
        Err(e) if std::env::var_os("VOUCH_CI").is_none() => {
            eprintln!("skipped: `{python}` cannot run: {e}");
            return;
        }
        Err(e) => panic!("`{python}`: {e}"),
    };
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // The schema can fail: a v1-style finding (its interval as text) and an unknown field are
    // both refused.
    let with_interval = reports
        .iter()
        .find(|(n, _)| n == "metrics.value")
        .expect("the metrics.value fixture");
    let mut doc: serde_json::Value =
        serde_json::from_str(&vouch::report::json::render(&with_interval.1)).unwrap();
    let finding = doc["checks"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|c| c.get("interval").is_some())
        .expect("a finding with an interval");
    finding["interval"] = serde_json::json!("[0.1, 0.2]");
    doc["surprise"] = serde_json::json!(true);
    let bad = tmp.path().join("bad.json");
    std::fs::write(&bad, doc.to_string()).unwrap();
    let out = std::process::Command::new(&python)
        .arg(root().join("tests/validate_json_schema.py"))
        .arg(root().join("docs/schema/report.schema.json"))
        .arg(&bad)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("interval") && err.contains("surprise"),
        "{err}"
    );
}
