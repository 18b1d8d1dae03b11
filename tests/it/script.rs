//! `script.*` end to end: the good Northstar script passes every script check, each
//! `fixtures/defects/script.*` fixture (the good script with one change) produces exactly its
//! expected script finding, and the check stays fast.

use crate::support::*;
use std::collections::BTreeSet;
use std::time::{Duration, Instant};
use vouch::report::{Finding, Status};

const SCRIPT: &str = "analyze_financials.py";

fn script_findings(files: Vec<(String, Vec<u8>)>) -> Vec<Finding> {
    verify_northstar(files)
        .findings
        .into_iter()
        .filter(|f| f.id.as_str().starts_with("script."))
        .collect()
}

#[test]
fn the_northstar_script_passes_every_script_check() {
    let found = script_findings(northstar_files());
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn each_script_defect_fixture_yields_only_its_own_finding() {
    let dir = root().join("fixtures/defects");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.starts_with("script.") {
            continue;
        }
        seen += 1;
        let expected: BTreeSet<(String, String)> = std::fs::read_to_string(path.join("expect.txt"))
            .unwrap()
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .map(|l| {
                let (s, id) = l.split_once(' ').unwrap();
                (s.to_string(), id.trim().to_string())
            })
            .collect();
        let bytes = std::fs::read(path.join(SCRIPT)).unwrap();
        let found = script_findings(with_file(northstar_files(), SCRIPT, bytes));
        let got: BTreeSet<(String, String)> = found
            .iter()
            .map(|f| (f.status.as_str().to_string(), f.id.as_str().to_string()))
            .collect();
        assert_eq!(got, expected, "{name}: {found:#?}");
        for f in &found {
            assert_eq!(f.artifact.as_deref(), Some(SCRIPT), "{name}");
            if f.id.as_str() != "script.missing_artifact_name"
                && f.id.as_str() != "script.unreadable"
            {
                assert!(
                    f.location.line.is_some(),
                    "{name}: every finding on code shows its line"
                );
            }
        }
    }
    assert!(seen >= 7, "the script fixtures are present");
}

#[test]
fn findings_point_at_the_changed_line() {
    let text = northstar_text(SCRIPT).replace("import re\n", "import re\nimport socket\n");
    let line = text.lines().position(|l| l == "import socket").unwrap() + 1;
    let found = script_findings(with_file(northstar_files(), SCRIPT, text));
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].status, Status::Fail);
    assert_eq!(found[0].id, "script.network_or_process");
    assert_eq!(found[0].location.line, Some(line));
    assert!(
        found[0].message.contains("`import socket`"),
        "{}",
        found[0].message
    );
}

#[test]
fn checking_the_northstar_script_is_fast() {
    let spec = spec();
    let text = northstar_text(SCRIPT);
    // Warm up (the stdlib set is built once), then take the best of a few runs; debug builds are
    // several times slower than release, so the bound is generous.
    let mut best = Duration::MAX;
    for _ in 0..5 {
        let start = Instant::now();
        let mut out = Vec::new();
        vouch::checks::script::judge(&spec, &text, &mut out);
        best = best.min(start.elapsed());
        assert!(out.is_empty());
    }
    eprintln!(
        "script checks on the Northstar script ({} bytes): {best:?}",
        text.len()
    );
    assert!(best < Duration::from_millis(50), "took {best:?}");
}
