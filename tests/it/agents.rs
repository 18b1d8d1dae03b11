//! The real-agent corpus (`fixtures/agents/`): bundles written by LLM agents doing the task in the
//! sandbox, each with the hand judgement of what vouch reports (`adjudication.toml`, rules in
//! docs/accuracy.md). The corpus is a ratchet: vouch's verdict is the recorded one, every real
//! defect is caught, and no failing finding or warning appears that is not judged (a false alarm
//! may only disappear). Single-defect mutants of every bundle that vouch accepts must be rejected
//! with a failing finding in the family the defect belongs to.

use crate::support::*;
use std::collections::BTreeMap;
use vouch::report::Status;

struct Case {
    name: String,
    files: Vec<(String, Vec<u8>)>,
    source_name: String,
    source: String,
    adjudication: toml::Table,
}

fn cases() -> Vec<Case> {
    let dir = root().join("fixtures/agents");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|p| {
            let (source_name, source) = read_dir_files(&p.join("source"))
                .into_iter()
                .next()
                .map(|(n, b)| (n, String::from_utf8(b).unwrap()))
                .expect("one source file");
            let adjudication: toml::Table = std::fs::read_to_string(p.join("adjudication.toml"))
                .unwrap()
                .parse()
                .unwrap();
            Case {
                name: p.file_name().unwrap().to_string_lossy().into_owned(),
                files: read_dir_files(&p.join("bundle")),
                source_name,
                source,
                adjudication,
            }
        })
        .collect()
}

fn entries<'a>(t: &'a toml::Table, key: &str) -> Vec<(&'a str, usize)> {
    t.get(key)
        .and_then(|v| v.as_array())
        .map(|a| {
            a.iter()
                .map(|e| {
                    (
                        e["check"].as_str().unwrap(),
                        e["count"].as_integer().unwrap() as usize,
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_corpus_holds_at_least_twelve_real_bundles_of_both_prompts() {
    let cs = cases();
    assert!(cs.len() >= 12, "{} bundles", cs.len());
    for prompt in ["tutorial", "vouch"] {
        let n = cs
            .iter()
            .filter(|c| c.adjudication["prompt"].as_str() == Some(prompt))
            .count();
        assert!(n >= 6, "{n} bundles with the {prompt} prompt");
    }
    let fast = cs
        .iter()
        .filter(|c| c.adjudication["budget"].as_str() == Some("fast"))
        .count();
    assert!(fast >= 3, "{fast} fast agents");
}

#[test]
fn every_bundle_gets_its_recorded_verdict_catches_every_real_defect_and_no_new_false_alarm() {
    let mut problems = Vec::new();
    for c in cases() {
        let r = verify_files(c.files.clone(), &c.source_name, &c.source);
        let verdict = format!("{:?}", r.verdict()).to_lowercase();
        let recorded = c.adjudication["vouch_verdict"].as_str().unwrap();
        if verdict != recorded {
            problems.push(format!(
                "{}: verdict {verdict}, recorded {recorded}",
                c.name
            ));
        }
        let mut fails: BTreeMap<&str, usize> = BTreeMap::new();
        for f in r.findings.iter().filter(|f| f.status == Status::Fail) {
            *fails.entry(f.id).or_default() += 1;
        }
        let defects = entries(&c.adjudication, "defect");
        let alarms = entries(&c.adjudication, "false_alarm");
        for (id, _) in &defects {
            if !fails.contains_key(id) {
                problems.push(format!("{}: real defect `{id}` not caught", c.name));
            }
        }
        // Warnings are judged too (`[[warning]]`, true or false), and may only disappear.
        let mut warns: BTreeMap<&str, usize> = BTreeMap::new();
        for f in r.findings.iter().filter(|f| f.status == Status::Warn) {
            *warns.entry(f.id).or_default() += 1;
        }
        let judged_warns = entries(&c.adjudication, "warning");
        for (id, n) in &warns {
            let allowed: usize = judged_warns
                .iter()
                .filter(|(d, _)| d == id)
                .map(|(_, k)| *k)
                .sum();
            if *n > allowed {
                problems.push(format!(
                    "{}: {n} × `{id}` warning, {allowed} judged",
                    c.name
                ));
            }
        }
        for (id, n) in &fails {
            let allowed: usize = defects
                .iter()
                .chain(&alarms)
                .filter(|(d, _)| d == id)
                .map(|(_, k)| *k)
                .sum();
            if *n > allowed {
                problems.push(format!(
                    "{}: {n} × `{id}` failing, {allowed} judged:\n{}",
                    c.name,
                    dump(&r)
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// One defect planted in a bundle, and the family that must catch it.
struct Mutant {
    what: &'static str,
    family: &'static str,
    files: Vec<(String, Vec<u8>)>,
}

fn text_of(files: &[(String, Vec<u8>)], name: &str) -> String {
    files
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, b)| String::from_utf8_lossy(b).into_owned())
        .unwrap_or_default()
}

/// A plain decimal scaled by 1.3, printed with its own decimals (`12.34` → `16.04`).
fn scaled(cell: &str) -> Option<String> {
    let t = cell.trim();
    let body = t.trim_end_matches('%').trim_end_matches('x');
    let v: f64 = body.replace(',', "").parse().ok()?;
    if v == 0.0 || !body.chars().any(|c| c.is_ascii_digit()) {
        return None;
    }
    let decimals = body.split_once('.').map_or(0, |(_, d)| d.len());
    let suffix = &t[body.len()..];
    Some(format!("{:.*}{suffix}", decimals, v * 1.3))
}

fn mutants(files: &[(String, Vec<u8>)]) -> Vec<Mutant> {
    let mut out = Vec::new();
    let put = |name: &str, text: String| with_file(files.to_vec(), name, text.into_bytes());
    // The last row of the metrics file: its first numeric metric cell, wrong, then blank.
    let metrics = text_of(files, "calculated_metrics.csv");
    let lines: Vec<&str> = metrics.lines().collect();
    if let Some((i, last)) = lines
        .iter()
        .enumerate()
        .rev()
        .find(|(_, l)| !l.trim().is_empty())
    {
        let cells: Vec<&str> = last.split(',').collect();
        if let Some(j) = (1..cells.len()).find(|&j| scaled(cells[j]).is_some()) {
            for (what, new) in [
                ("a wrong metric cell", scaled(cells[j]).unwrap()),
                ("a blanked defined metric", String::new()),
            ] {
                let mut row = cells.clone();
                row[j] = &new;
                let mut ls = lines.clone();
                let joined = row.join(",");
                ls[i] = &joined;
                out.push(Mutant {
                    what,
                    family: "metrics",
                    files: put("calculated_metrics.csv", ls.join("\n") + "\n"),
                });
            }
        }
    }
    // A dropped flag: the first data row of the movements file.
    let movements = text_of(files, "unusual_movements.csv");
    let ml: Vec<&str> = movements.lines().collect();
    if ml.len() > 2 {
        let mut kept = vec![ml[0]];
        kept.extend(&ml[2..]);
        out.push(Mutant {
            what: "a dropped flag",
            family: "movements",
            files: put("unusual_movements.csv", kept.join("\n") + "\n"),
        });
    }
    // A wrong manifest claim: one more row than the source has.
    let manifest = text_of(files, "analysis_run.json");
    if let Ok(mut v) = serde_json::from_str::<serde_json::Value>(&manifest) {
        if let Some(n) = v.get("row_count").and_then(|n| n.as_u64()) {
            v["row_count"] = serde_json::json!(n + 1);
            out.push(Mutant {
                what: "a wrong manifest claim",
                family: "manifest",
                files: put("analysis_run.json", v.to_string()),
            });
        }
    }
    // A renamed section: the Bull case heading.
    let memo = text_of(files, "investment_analysis.md");
    if let Some(line) = memo
        .lines()
        .find(|l| l.starts_with('#') && l.to_lowercase().contains("bull case"))
    {
        let renamed = line.to_lowercase().replace("bull case", "upside view");
        out.push(Mutant {
            what: "a renamed section",
            family: "memo",
            files: put("investment_analysis.md", memo.replacen(line, &renamed, 1)),
        });
    }
    // A wrong KPI cell: the second cell of the first KPI-table row after the header.
    let mut in_kpi = false;
    let mut header_seen = 0;
    for line in memo.lines() {
        if line.starts_with('#') {
            in_kpi = line.to_lowercase().contains("kpi");
            continue;
        }
        if !in_kpi || !line.trim_start().starts_with('|') {
            continue;
        }
        header_seen += 1;
        if header_seen <= 2 {
            continue;
        }
        let cells: Vec<&str> = line.split('|').collect();
        if let Some(j) =
            (2..cells.len()).find(|&j| scaled(cells[j].trim().trim_start_matches('$')).is_some())
        {
            let old = cells[j].trim();
            let new = match old.strip_prefix('$') {
                Some(rest) => format!("${}", scaled(rest).unwrap()),
                None => scaled(old).unwrap(),
            };
            let mut row = cells.clone();
            let cell = format!(" {new} ");
            row[j] = &cell;
            let changed = row.join("|");
            out.push(Mutant {
                what: "a wrong KPI cell",
                family: "memo",
                files: put("investment_analysis.md", memo.replacen(line, &changed, 1)),
            });
            break;
        }
    }
    out
}

#[test]
fn single_defect_mutants_of_every_accepted_bundle_are_rejected_in_the_right_family() {
    let mut total = 0;
    let mut caught = 0;
    let mut missed = Vec::new();
    for c in cases() {
        if c.adjudication["vouch_verdict"].as_str() != Some("accept") {
            continue;
        }
        for m in mutants(&c.files) {
            total += 1;
            let r = verify_files(m.files, &c.source_name, &c.source);
            let hit = r.findings.iter().any(|f| {
                f.status == Status::Fail && (f.family() == m.family || f.family() == "consistency")
            });
            if hit {
                caught += 1;
            } else {
                missed.push(format!("{}: {}", c.name, m.what));
            }
        }
    }
    assert!(total >= 30, "only {total} mutants");
    assert!(
        caught * 100 >= total * 95,
        "{caught} of {total} mutants caught; missed:\n{}",
        missed.join("\n")
    );
}
