//! The real-agent corpus (`fixtures/agents/`): bundles written by LLM agents doing the task in the
//! sandbox, each with the hand judgement of what vouch reports (`adjudication.toml`, rules in
//! docs/accuracy.md). The corpus is a ratchet: vouch's verdict is the recorded one, every real
//! defect is caught, and no failing finding or warning appears that is not judged (a false alarm
//! may only disappear). Single-defect mutants of every bundle must gain a failing finding in the
//! family the defect belongs to (or `consistency`) that the bundle did not have.

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

/// The corpus proper: every bundle in `fixtures/agents/`.
fn cases() -> Vec<Case> {
    cases_in("fixtures/agents")
}

/// Bundles held out of the mutant rate (`fixtures/agents-pending/`, docs/accuracy.md says why):
/// their verdicts, real defects and false alarms are held to their judgement all the same.
fn pending() -> Vec<Case> {
    cases_in("fixtures/agents-pending")
}

fn cases_in(dir: &str) -> Vec<Case> {
    let dir = root().join(dir);
    if !dir.is_dir() {
        return Vec::new();
    }
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
    for c in cases().into_iter().chain(pending()) {
        let r = verify_files(c.files.clone(), &c.source_name, &c.source);
        assert_halves_agree(&c.files, &c.source_name, &c.source, &r);
        let verdict = format!("{:?}", r.verdict()).to_lowercase();
        let recorded = c.adjudication["vouch_verdict"].as_str().unwrap();
        // §9 done-when: every verdict right and no false failing finding on the corpus.
        if recorded != c.adjudication["verdict"].as_str().unwrap() {
            problems.push(format!("{}: recorded verdict is not the right one", c.name));
        }
        if !entries(&c.adjudication, "false_alarm").is_empty() {
            problems.push(format!("{}: false failing findings recorded", c.name));
        }
        if verdict != recorded {
            problems.push(format!(
                "{}: verdict {verdict}, recorded {recorded}",
                c.name
            ));
        }
        let mut fails: BTreeMap<&str, usize> = BTreeMap::new();
        for f in r.findings.iter().filter(|f| f.status == Status::Fail) {
            *fails.entry(f.id.as_str()).or_default() += 1;
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
            *warns.entry(f.id.as_str()).or_default() += 1;
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
    /// Where and how, for the report of a missed mutant (the memo figures).
    detail: String,
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
    let new = format!("{:.*}{suffix}", decimals, v * 1.3);
    // `0.1` × 1.3 prints as `0.1`: no defect is planted.
    let same = new.trim_end_matches(suffix).parse::<f64>().ok() == Some(v);
    (!same).then_some(new)
}

/// Figures of a prose line: numbers with a decimal point (`10.7%`, `$1,498.3m`, `1.64x`).
fn prose_figures(line: &str) -> Vec<(usize, usize)> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit()
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'.'))
        {
            let s = i;
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b',' || b[i] == b'.') {
                i += 1;
            }
            let mut e = i;
            while e > s && matches!(b[e - 1], b',' | b'.') {
                e -= 1;
            }
            let body = &line[s..e];
            let alpha_after = b
                .get(e)
                .is_some_and(|c| c.is_ascii_alphabetic() && *c != b'x' && *c != b'm');
            if body.contains('.') && !alpha_after && body.split('.').count() == 2 {
                out.push((s, e));
            }
        } else {
            i += 1;
        }
    }
    out
}

/// The memo's prose figures that vouch traced in the unmutated bundle (not listed unverified),
/// outside tables, headings and the KPI section: `(line number, start, end)`.
fn traced_figures(memo: &str, base: &vouch::report::Report) -> Vec<(usize, usize, usize)> {
    let unverified: Vec<(usize, &str)> = base
        .findings
        .iter()
        .filter(|f| f.id.as_str() == "memo.unverified_number")
        .filter_map(|f| Some((f.location.line?, f.message.as_str())))
        .collect();
    let mut out = Vec::new();
    let mut in_kpi = false;
    for (i, line) in memo.lines().enumerate() {
        let n = i + 1;
        let t = line.trim_start();
        if t.starts_with('#') {
            in_kpi = t.to_lowercase().contains("kpi");
            continue;
        }
        if in_kpi || t.starts_with('|') || t.is_empty() {
            continue;
        }
        for (s, e) in prose_figures(line) {
            let raw = &line[s..e];
            // A year-like figure is not one; an unverified one cannot be caught.
            if raw.len() == 4 && !raw.contains('.') {
                continue;
            }
            let listed = unverified
                .iter()
                .any(|(l, m)| *l == n && m.contains(&format!("`{raw}")));
            if !listed {
                out.push((n, s, e));
            }
        }
    }
    out
}

fn mutants(files: &[(String, Vec<u8>)], base: &vouch::report::Report, source: &str) -> Vec<Mutant> {
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
        // The first column that holds a §2 metric (not an echoed source column).
        let spec = spec();
        let header: Vec<&str> = lines[0].split(',').collect();
        let is_metric = |j: usize| {
            header
                .get(j)
                .is_some_and(|h| spec.metric_for_header(&vouch::names::fold(h)).is_some())
        };
        if let Some(j) = (1..cells.len()).find(|&j| is_metric(j) && scaled(cells[j]).is_some()) {
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
                    detail: String::new(),
                    family: "metrics",
                    files: put("calculated_metrics.csv", ls.join("\n") + "\n"),
                });
            }
        }
    }
    // A dropped flag: the first data row of the movements file that is a required flag (a row
    // the base report accepts as an extra, such as a derived quantity's move, is no defect to
    // drop); a spurious one: the first row again in the source's first year (no prior year, so
    // nothing can move).
    let movements = text_of(files, "unusual_movements.csv");
    let ml: Vec<&str> = movements.lines().collect();
    let extra = |row: usize| {
        base.findings
            .iter()
            .any(|f| f.id.as_str() == "movements.extra_flag" && f.location.row == Some(row))
    };
    let dropped = (1..ml.len()).find(|&i| !extra(i)).unwrap_or(1);
    if ml.len() > 2 {
        let mut kept: Vec<&str> = ml.clone();
        kept.remove(dropped);
        out.push(Mutant {
            what: "a dropped flag",
            detail: String::new(),
            family: "movements",
            files: put("unusual_movements.csv", kept.join("\n") + "\n"),
        });
        let first_year = source
            .lines()
            .nth(1)
            .and_then(|l| l.split(',').next())
            .unwrap_or("")
            .trim_matches('"')
            .to_string();
        let header: Vec<&str> = ml[0].split(',').collect();
        let row: Vec<&str> = ml[1].split(',').collect();
        if let Some(y) = header.iter().position(|h| {
            let h = h.trim().trim_matches('"').to_ascii_lowercase();
            h == "year" || h == "fiscal_year" || h == "fy"
        }) {
            if y < row.len() && !first_year.is_empty() {
                let old = row[y].trim().trim_matches('"');
                let new_year = if old.to_ascii_uppercase().starts_with("FY") {
                    format!("FY{first_year}")
                } else {
                    first_year.clone()
                };
                let mut r2 = row.clone();
                r2[y] = &new_year;
                let mut ls = ml.clone();
                let joined = r2.join(",");
                ls.push(&joined);
                out.push(Mutant {
                    what: "a spurious flag",
                    detail: String::new(),
                    family: "movements",
                    files: put("unusual_movements.csv", ls.join("\n") + "\n"),
                });
            }
        }
    }
    // A wrong manifest claim: one more row than the source has.
    let manifest = text_of(files, "analysis_run.json");
    if let Ok(mut v) = serde_json::from_str::<serde_json::Value>(&manifest) {
        if let Some(n) = v.get("row_count").and_then(|n| n.as_u64()) {
            v["row_count"] = serde_json::json!(n + 1);
            out.push(Mutant {
                what: "a wrong manifest claim",
                detail: String::new(),
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
            detail: String::new(),
            family: "memo",
            files: put("investment_analysis.md", memo.replacen(line, &renamed, 1)),
        });
    }
    // A wrong figure in a memo sentence: three traced prose figures (first, middle, last).
    let traced = traced_figures(&memo, base);
    let picks: Vec<usize> = if traced.len() >= 3 {
        vec![0, traced.len() / 2, traced.len() - 1]
    } else {
        (0..traced.len()).collect()
    };
    let memo_lines: Vec<&str> = memo.lines().collect();
    for k in picks {
        let (n, s, e) = traced[k];
        let line = memo_lines[n - 1];
        let Some(new) = scaled(&line[s..e]) else {
            continue;
        };
        let changed = format!("{}{}{}", &line[..s], new, &line[e..]);
        let mut ls = memo_lines.clone();
        ls[n - 1] = &changed;
        out.push(Mutant {
            what: "a wrong figure in a memo sentence",
            detail: format!(" (line {n}: `{}` → `{new}`)", &line[s..e]),
            family: "memo",
            files: put("investment_analysis.md", ls.join("\n") + "\n"),
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
                detail: String::new(),
                family: "memo",
                files: put("investment_analysis.md", memo.replacen(line, &changed, 1)),
            });
            break;
        }
    }
    let svg = text_of(files, "financial_trends.svg");
    // A wrong chart year label: the last year label names the year after the source's last.
    let years: Vec<i32> = source
        .lines()
        .skip(1)
        .filter_map(|l| l.split(',').next()?.trim_matches('"').trim().parse().ok())
        .collect();
    if let Some(&last) = years.iter().max() {
        for label in [format!(">FY{last}<"), format!(">{last}<")] {
            if let Some(at) = svg.rfind(&label) {
                let wrong = label.replace(&last.to_string(), &(last + 1).to_string());
                let mut t = svg.clone();
                t.replace_range(at..at + label.len(), &wrong);
                out.push(Mutant {
                    what: "a wrong chart year label",
                    detail: String::new(),
                    family: "svg",
                    files: put("financial_trends.svg", t),
                });
                break;
            }
        }
    }
    // A chart bar or point moved 30 %: one mark of a panel whose series vouch verified.
    if let Some(t) = moved_mark(&svg) {
        out.push(Mutant {
            what: "a chart bar or point moved 30 %",
            detail: String::new(),
            family: "svg",
            files: put("financial_trends.svg", t),
        });
    }
    out
}

/// The chart with one mark of a pinned, verified panel moved: a bar 30 % taller from its
/// baseline, or a point 30 % of its series' plotted range higher. `None` when no panel is pinned.
fn moved_mark(svg: &str) -> Option<String> {
    use vouch::checks::svg::fidelity;
    use vouch::read::svg::{panels, parse, scene};
    let doc = parse::parse(svg).ok()?;
    let canvas = scene::canvas(doc.root()).ok()?;
    let sc = scene::build(&doc, &canvas, 16.0, 0.6);
    let roles = panels::roles(&sc, 0.5);
    let found = panels::detect(&sc, &roles, 0.5);
    for p in &found.panels {
        let readings = fidelity::read_all(&sc, &roles, p, 0.5);
        let [r] = &readings[..] else { continue };
        if r.marks.len() < 3 {
            continue;
        }
        // The mark in the middle of the series, on its own line of the file.
        let (_, _, line) = r.marks[r.marks.len() / 2];
        let lines: Vec<&str> = svg.lines().collect();
        let text = lines.get(line.checked_sub(1)?)?;
        if r.marks.iter().filter(|m| m.2 == line).count() != 1 {
            continue;
        }
        let moved = match r.kind {
            fidelity::SeriesKind::Bars => {
                // Bars judged from a baseline only.
                r.baseline?;
                grow_rect(text)?
            }
            _ => continue,
        };
        let mut ls = lines.clone();
        ls[line - 1] = &moved;
        return Some(ls.join("\n") + "\n");
    }
    None
}

/// A `<rect>` 30 % taller, its edge on the baseline kept (vertical bars in plain user units).
fn grow_rect(text: &str) -> Option<String> {
    if !text.contains("<rect") || text.contains("transform") {
        return None;
    }
    let attr = |name: &str| -> Option<(usize, usize, f64)> {
        let key = format!(" {name}=\"");
        let s = text.find(&key)? + key.len();
        let e = s + text[s..].find('"')?;
        Some((s, e, text[s..e].trim().parse().ok()?))
    };
    let (ys, ye, y) = attr("y")?;
    let (hs, he, h) = attr("height")?;
    if h <= 1.0 {
        return None;
    }
    // Bars grow up from the baseline in a y-down canvas: the top moves up by 0.3 h.
    let mut t = text.to_string();
    let (first, second) = if ys < hs {
        (
            (hs, he, format!("{:.2}", h * 1.3)),
            (ys, ye, format!("{:.2}", y - 0.3 * h)),
        )
    } else {
        (
            (ys, ye, format!("{:.2}", y - 0.3 * h)),
            (hs, he, format!("{:.2}", h * 1.3)),
        )
    };
    // Replace the later attribute first so the earlier offsets stay valid.
    t.replace_range(first.0..first.1, &first.2);
    t.replace_range(second.0..second.1, &second.2);
    Some(t)
}

#[test]
fn single_defect_mutants_of_every_bundle_gain_a_failing_finding_in_the_right_family() {
    let mut total = 0;
    let mut caught = 0;
    let mut missed = Vec::new();
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    for c in cases() {
        let base = verify_files(c.files.clone(), &c.source_name, &c.source);
        // A faulty source checks nothing that needs it: a planted defect cannot show.
        if base.source_faulty() {
            continue;
        }
        let failing = |r: &vouch::report::Report,
                       family: &str|
         -> BTreeMap<(String, Option<usize>), usize> {
            let mut m = BTreeMap::new();
            for f in r.findings.iter().filter(|f| {
                f.status == Status::Fail && (f.family() == family || f.family() == "consistency")
            }) {
                *m.entry((f.id.as_str().to_string(), f.location.line))
                    .or_default() += 1;
            }
            m
        };
        for m in mutants(&c.files, &base, &c.source) {
            total += 1;
            *kinds.entry(m.what).or_default() += 1;
            let r = verify_files(m.files, &c.source_name, &c.source);
            let before = failing(&base, m.family);
            let after = failing(&r, m.family);
            let hit = after
                .iter()
                .any(|(k, n)| before.get(k).is_none_or(|b| n > b));
            if hit {
                caught += 1;
            } else {
                missed.push(format!("{}: {}{}", c.name, m.what, m.detail));
            }
        }
    }
    for kind in [
        "a wrong metric cell",
        "a blanked defined metric",
        "a dropped flag",
        "a spurious flag",
        "a wrong manifest claim",
        "a renamed section",
        "a wrong figure in a memo sentence",
        "a wrong KPI cell",
        "a wrong chart year label",
        "a chart bar or point moved 30 %",
    ] {
        assert!(
            kinds.get(kind).is_some_and(|&n| n >= 2),
            "{kind}: {kinds:?}"
        );
    }
    eprintln!("{caught} of {total} mutants caught; {kinds:?}; missed: {missed:?}");
    assert!(total >= 80, "only {total} mutants");
    assert!(
        caught * 100 >= total * 95,
        "{caught} of {total} mutants caught; missed:\n{}",
        missed.join("\n")
    );
}
