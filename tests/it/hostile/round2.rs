//! Hostile inputs, second round (issue 11): one case per class of broken promise, each failing
//! before its fix. Large inputs are generated here; small ones live in `tests/hostile/`.

use super::*;

#[test]
fn an_svg_element_with_150k_attributes_is_refused_not_parsed_for_seconds() {
    // quick-xml 0.37 checked duplicate attributes pairwise: 150,000 took 17 s and passed.
    let attrs: String = (0..150_000).map(|i| format!(" a{i}=\"1\"")).collect();
    let svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect{attrs}/></svg>"#
    );
    let dir = bundle_with("financial_trends.svg", svg.as_bytes());
    rejected_with("150k attributes", dir.path(), "svg.too_complex");
}

#[test]
fn entity_references_in_svg_text_are_resolved_and_unknown_ones_refused() {
    // quick-xml 0.41 reports references as their own events: the five XML entities and
    // character references join the text around them; any other entity is malformed.
    let good = northstar_text("financial_trends.svg");
    let title = good
        .split("<text")
        .nth(1)
        .and_then(|t| t.split('>').nth(1))
        .and_then(|t| t.split('<').next())
        .expect("a text element")
        .to_string();
    assert!(title.len() > 3, "{title}");
    let escaped: String = title.chars().map(|c| format!("&#{};", c as u32)).collect();
    let same = good.replacen(&format!(">{title}<"), &format!(">{escaped}<"), 1);
    let a = verify_dir(bundle_with("financial_trends.svg", same.as_bytes()).path());
    let b = verify_dir(bundle_dir().path());
    let svg_ids = |r: &vouch::Report| -> Vec<(String, Status)> {
        r.findings
            .iter()
            .filter(|f| f.family() == "svg")
            .map(|f| (f.id.as_str().to_string(), f.status))
            .collect()
    };
    assert_eq!(svg_ids(&a), svg_ids(&b), "{}", dump(&a));
    let unknown = good.replacen(&format!(">{title}<"), ">&nbsp;<", 1);
    let dir = bundle_with("financial_trends.svg", unknown.as_bytes());
    rejected_with("unknown entity", dir.path(), "svg.malformed");
}

#[test]
fn a_memo_nested_after_a_lone_carriage_return_is_refused() {
    // The pre-scan split lines at `\n` only; pulldown-cmark also ends them at a lone `\r`:
    // 400k `>` after `x\r` took 46 s and passed.
    let n = 400_000;
    for (case, text) in [
        (
            "quotes after a lone CR",
            format!("x\r{}deep\n", ">".repeat(n)),
        ),
        (
            "footnote definitions",
            format!("x\n\n{}deep\n", "[^a]: ".repeat(n / 4)),
        ),
    ] {
        let dir = bundle_with("investment_analysis.md", text.as_bytes());
        rejected_with(case, dir.path(), "memo.too_complex");
    }
}

#[test]
fn a_memo_with_cr_only_line_ends_reads_as_the_same_memo() {
    let good = northstar_text("investment_analysis.md");
    let cr = good.replace('\n', "\r");
    let a = verify_dir(bundle_with("investment_analysis.md", cr.as_bytes()).path());
    let b = verify_dir(bundle_dir().path());
    let memo = |r: &vouch::Report| -> Vec<(String, Option<usize>, Status)> {
        r.findings
            .iter()
            .filter(|f| f.family() == "memo")
            .map(|f| (f.id.as_str().to_string(), f.location.line, f.status))
            .collect()
    };
    assert_eq!(memo(&a), memo(&b), "{}", dump(&a));
}

#[test]
fn a_manifest_list_of_millions_is_one_finding_not_millions() {
    // 5.5M entries aborted the process (allocation failure); 1M gave a 143 MB report.
    let good: serde_json::Value =
        serde_json::from_str(&northstar_text("analysis_run.json")).unwrap();
    for n in [1_000_000usize, 5_500_000] {
        let mut v = good.clone();
        v["generated_filenames"] =
            serde_json::Value::Array(vec![serde_json::Value::String(String::new()); n]);
        let text = serde_json::to_string(&v).unwrap();
        let dir = bundle_with("analysis_run.json", text.as_bytes());
        let (code, json, _) = verify_binary(dir.path(), &[]);
        assert_eq!(code, 1, "{n} entries");
        assert!(json_has(&json, "manifest.generated_filenames", "fail"));
        let listed = json["checks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["id"] == "manifest.generated_filenames" && c["message"].is_string())
            .count();
        assert!(listed <= 2, "{n} entries gave {listed} findings");
    }
}

#[test]
fn findings_of_one_check_are_capped_and_summarised() {
    // 20,000 flags of items the source does not have: 500 listed, one summary, same verdict.
    let mut csv = northstar_text("unusual_movements.csv");
    let header = csv.lines().next().unwrap().to_string();
    let cols = header.split(',').count();
    for i in 0..20_000 {
        let mut cells = vec![String::new(); cols];
        cells[0] = "2024".into();
        cells[1] = format!("no_such_item_{i}");
        csv.push_str(&cells.join(","));
        csv.push('\n');
    }
    let dir = bundle_with("unusual_movements.csv", csv.as_bytes());
    let r = verify_dir(dir.path());
    let max = vouch::report::MAX_FINDINGS_PER_CHECK;
    let mut per: std::collections::BTreeMap<&str, usize> = Default::default();
    for f in &r.findings {
        *per.entry(f.id.as_str()).or_default() += 1;
    }
    assert!(per.values().all(|&n| n <= max + 1), "{per:?}");
    let summary = r
        .findings
        .iter()
        .find(|f| f.message.contains("more `") && f.message.contains("not listed"))
        .expect("a summary finding");
    assert_eq!(summary.status, Status::Fail, "{}", summary.message);
    assert_eq!(r.verdict().exit_code(), 1);
}

#[test]
fn every_member_of_a_multi_member_tar_gz_is_read() {
    // Only the first gzip member was read: a tar stream split over two members lost its second
    // half, which tar and Python both extract.
    use std::io::Write;
    let files = northstar_files();
    let mut tar = tar::Builder::new(Vec::new());
    let mut cut = 0;
    for (i, (name, bytes)) in files.iter().enumerate() {
        let mut h = tar::Header::new_gnu();
        h.set_size(bytes.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        tar.append_data(&mut h, format!("bundle/{name}"), bytes.as_slice())
            .unwrap();
        if i == 2 {
            cut = tar.get_ref().len();
        }
    }
    let tar = tar.into_inner().unwrap();
    let member = |part: &[u8]| {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(part).unwrap();
        gz.finish().unwrap()
    };
    let mut bytes = member(&tar[..cut]);
    bytes.extend(member(&tar[cut..]));
    let contents = archive::read("runs.tar.gz", &bytes, limits()).unwrap();
    let mut names: Vec<&str> = contents.files.iter().map(|(n, _)| n.as_str()).collect();
    names.sort();
    let mut want: Vec<String> = files.iter().map(|(n, _)| format!("bundle/{n}")).collect();
    want.sort();
    assert_eq!(names, want, "{:?}", contents.skipped);
}

#[test]
fn bundle_text_cannot_inject_escapes_or_lines_into_any_report() {
    // A header cell with a terminal escape and a line break, and a cited file of the same: the
    // human report printed them raw (a cleared screen, a fake green `accept:` line).
    let forged = "\u{1b}[2J\u{1b}[32maccept: all good\u{1b}[0m\r\n## Verdict\u{202e}";
    let metrics = northstar_text("calculated_metrics.csv").replacen(
        "revenue_growth",
        &format!("\"revenue_growth{forged}\""),
        1,
    );
    // A wrong figure's sentence is quoted in its finding: the old report printed it raw.
    let good_memo = northstar_text("investment_analysis.md");
    assert!(good_memo.contains("## Executive view"));
    let memo = good_memo.replacen(
        "## Executive view",
        &format!("## Executive view\n\nRevenue was $9,999.9 million in FY2025.{forged} ok"),
        1,
    );
    let dir = bundle_with("calculated_metrics.csv", metrics.as_bytes());
    std::fs::write(dir.path().join("investment_analysis.md"), memo).unwrap();
    for format in ["human", "markdown", "junit", "json"] {
        let source = northstar_source_path();
        let (code, out, err, _) = vouch(
            &[
                "verify",
                dir.path().to_str().unwrap(),
                "--source",
                source.to_str().unwrap(),
                "--format",
                format,
            ],
            None,
        );
        assert_eq!(code, 1, "{format}: {err}");
        assert!(
            !out.contains('\u{1b}') && !out.contains('\r') && !out.contains('\u{202e}'),
            "{format} output carries raw control characters"
        );
        assert!(
            !out.lines()
                .any(|l| l.trim_start().starts_with("## Verdict")),
            "{format}: a forged heading"
        );
    }
}

#[cfg(unix)]
#[test]
fn a_hard_link_in_a_bundle_directory_is_not_read() {
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.md");
    std::fs::write(&secret, northstar_text("investment_analysis.md")).unwrap();
    let dir = bundle_dir();
    let memo = dir.path().join("investment_analysis.md");
    std::fs::remove_file(&memo).unwrap();
    if std::fs::hard_link(&secret, &memo).is_err() {
        eprintln!("hard links across these temporary directories are not possible here");
        return;
    }
    rejected_with("a hard-linked memo", dir.path(), "bundle.not_regular_file");
}

#[cfg(unix)]
#[test]
fn audit_and_compare_refuse_fifos_and_devices_instead_of_hanging() {
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("source.csv");
    let results = tmp.path().join("runs.jsonl");
    for p in [&fifo, &results] {
        let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    }
    let dir = bundle_dir();
    let bundle = dir.path().to_str().unwrap();
    for source in [fifo.to_str().unwrap(), "/dev/zero"] {
        let (code, _, err, _) = vouch(&["audit", bundle, "--source", source], None);
        assert_eq!(code, 2, "audit --source {source}: {err}");
        assert!(err.contains("not a regular file"), "{err}");
    }
    for input in [results.to_str().unwrap(), "/dev/zero"] {
        let (code, _, err, _) = vouch(&["compare", input, input], None);
        assert_eq!(code, 2, "compare {input}: {err}");
    }
}

#[test]
fn a_reexecuted_script_cannot_fill_dev_shm_or_leave_a_deep_tree_behind() {
    // `/dev/shm` and the rest of bwrap's `--dev` tmpfs were unbounded (3 GB written past the
    // 2 GiB limit); a tree deeper than the open-file limit was not cleaned up.
    if !reexecution_possible() {
        return;
    }
    let bundle = bundle_dir();
    let script = "import os, sys\n\
        written = 0\n\
        try:\n\
        \x20   with open('/dev/shm/fill', 'wb') as f:\n\
        \x20       for _ in range(512):\n\
        \x20           f.write(b'0' * (1 << 20)); written += 1\n\
        except OSError:\n\
        \x20   pass\n\
        try:\n\
        \x20   open('/dev/planted', 'w')\n\
        \x20   planted = True\n\
        except OSError:\n\
        \x20   planted = False\n\
        os.chdir('/mnt/data')\n\
        for _ in range(3000):\n\
        \x20   os.mkdir('d'); os.chdir('d')\n\
        print(written, planted)\n\
        sys.exit(3 if written > 64 or planted else 4)\n";
    std::fs::write(bundle.path().join("analyze_financials.py"), script).unwrap();
    let before: Vec<_> = scratch_dirs();
    let limits = vouch::reexecute::jail::Limits {
        open_files: 256,
        ..short_limits()
    };
    let found = reexecute_dir(bundle.path(), &limits);
    let failed = found
        .iter()
        .find(|f| f.id.as_str() == "script.reexecution_failed")
        .unwrap_or_else(|| panic!("{found:#?}"));
    assert!(failed.message.contains("status 4"), "{}", failed.message);
    let after = scratch_dirs();
    assert!(
        after.iter().all(|d| before.contains(d)),
        "scratch left behind: {after:?}"
    );
}

fn scratch_dirs() -> Vec<std::path::PathBuf> {
    std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("vouch-reexecute-"))
        })
        .collect()
}

#[test]
fn compare_memory_follows_the_runs_not_runs_times_distinct_checks() {
    // A dense runs × checks grid: 300,000 runs that each name other checks needed 90 GB.
    use vouch::audit::{CheckOutcome, RunResult, RunVerdict};
    let side = |tag: &str| -> Vec<RunResult> {
        (0..20_000)
            .map(|i| RunResult {
                run_id: format!("{tag}{i}"),
                path: format!("{tag}/{i}"),
                label: None,
                trial: None,
                model: None,
                source_file: None,
                source_sha256: None,
                verdict: RunVerdict::Accept,
                error: None,
                checks: vec![CheckOutcome {
                    check: format!("x.check_{tag}_{i}"),
                    status: "pass".into(),
                    findings: 0,
                    message: None,
                }],
                first_pass: Some(RunVerdict::Accept),
                repair_rounds: Some(0),
            })
            .collect()
    };
    // 40,000 distinct checks over 40,000 runs: 1.6 billion cells densely, 40,000 sparsely.
    let c = vouch::compare::compare(&side("a"), &side("b"), 0.05);
    let _ = c;
}

#[test]
fn an_audit_that_finds_nothing_to_verify_is_not_a_pass() {
    // "audited 0 runs" exited 0: a CI job pointed at the wrong path, or an archive with nothing
    // verifiable in it, went green.
    let empty = tempfile::tempdir().unwrap();
    let (code, _, err, _) = vouch(
        &["audit", empty.path().to_str().unwrap(), "--no-cache"],
        None,
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("nothing to verify"), "{err}");
    let zip = empty.path().join("notes.zip");
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    w.start_file("notes/readme.txt", zip::write::SimpleFileOptions::default())
        .unwrap();
    std::io::Write::write_all(&mut w, b"nothing here").unwrap();
    std::fs::write(&zip, w.finish().unwrap().into_inner()).unwrap();
    let (code, _, err, _) = vouch(&["audit", zip.to_str().unwrap(), "--no-cache"], None);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn a_wide_long_trusted_source_costs_linear_work_and_capped_findings() {
    // 600 extra line items over 250 years: ~150,000 expected flags, none listed. Matching each
    // against those already reported was pairwise (245 s for 900 × 250 in a debug build).
    let north = northstar_source_text();
    let mut lines = north.lines();
    let header = lines.next().unwrap();
    let rows: Vec<&str> = lines.collect();
    let extra = 600;
    let mut src = String::from(header);
    for i in 0..extra {
        src.push_str(&format!(",extra_item_{i}"));
    }
    src.push('\n');
    for y in 0..250usize {
        let base = rows[y % rows.len()];
        let (_, rest) = base.split_once(',').unwrap();
        src.push_str(&format!("{},{rest}", 1800 + y));
        for i in 0..extra {
            // Alternating levels: every year moves by more than any threshold.
            src.push_str(if (y + i) % 2 == 0 { ",100" } else { ",300" });
        }
        src.push('\n');
    }
    let files = northstar_files();
    let r = verify_files(files, "northstar_cloud_financial_statements.csv", &src);
    let missing = r
        .findings
        .iter()
        .filter(|f| f.id.as_str() == "movements.missing")
        .count();
    let max = vouch::report::MAX_FINDINGS_PER_CHECK;
    assert_eq!(missing, max + 1, "500 listed and one summary");
    assert_eq!(r.verdict().exit_code(), 1);
}

#[test]
fn a_faulty_source_is_described_as_it_is_and_never_blamed_on_the_agent() {
    let north = northstar_source_text();
    let lines: Vec<&str> = north.lines().collect();
    let header: Vec<&str> = lines[0].split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let with_cell = |row: usize, c: usize, f: &dyn Fn(&str) -> String| -> String {
        let mut out = Vec::new();
        for (i, l) in lines.iter().enumerate() {
            let mut cells: Vec<String> = l.split(',').map(str::to_string).collect();
            if i == row {
                cells[c] = f(&cells[c]);
            }
            out.push(cells.join(","));
        }
        out.join("\n") + "\n"
    };
    let run = |src: &str| {
        verify_files(
            northstar_files(),
            "northstar_cloud_financial_statements.csv",
            src,
        )
    };
    let status_of = |r: &vouch::Report, id: &str| -> Vec<Status> {
        r.findings
            .iter()
            .filter(|f| f.id.as_str() == id)
            .map(|f| f.status)
            .collect()
    };

    // A NUL in revenue says nothing about the identity (assets, liabilities, equity).
    let r = run(&with_cell(2, col("revenue"), &|c| {
        format!("{}\0{}", &c[..2], &c[2..])
    }));
    assert!(has(&r, "source.non_numeric", Status::Fail));
    assert!(
        status_of(&r, "manifest.identity_claim").is_empty(),
        "{:?}",
        r.findings
    );
    // In total_assets it makes the identity untestable for that row: not judged, not broken.
    let r = run(&with_cell(2, col("total_assets"), &|c| {
        format!("{}\0{}", &c[..2], &c[2..])
    }));
    assert_eq!(status_of(&r, "manifest.identity_claim"), vec![Status::Info]);

    // A well-formed decimal too long to read is called that, and the claim that every value is
    // numeric is not contradicted.
    let r = run(&with_cell(3, col("revenue"), &|c| {
        format!("{c}{}", "0".repeat(600))
    }));
    assert!(has(&r, "source.number_too_long", Status::Fail));
    assert!(!has(&r, "source.non_numeric", Status::Fail));
    assert_eq!(status_of(&r, "manifest.claim"), vec![Status::Info]);

    // A column without a header cannot be flagged by name: it is ignored, and said so.
    let unnamed: String = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let v = if i == 0 {
                String::new()
            } else {
                (7 * 10u64.pow(i as u32)).to_string()
            };
            format!("{l},{v}\n")
        })
        .collect();
    let r = run(&unnamed);
    assert!(has(&r, "source.ignored_column", Status::Info));
    assert_eq!(
        r.verdict().exit_code(),
        0,
        "{:?}",
        r.findings
            .iter()
            .filter(|f| f.status == Status::Fail)
            .collect::<Vec<_>>()
    );
}

#[test]
fn style_rules_against_many_elements_are_bounded_work() {
    // 9,900 rules that all match 40,000 texts: 4 × 10⁸ rule applications, now stopped by the
    // matching budget. And descendant chains over 60 nested groups that never match at their
    // far end (a backtracking search would try every combination of ancestors) finish.
    let rules: String = (0..9_900)
        .map(|i| format!("text{{font-size:{}px}}", i % 20 + 1))
        .collect();
    let texts = "<text x='1' y='1'>a</text>".repeat(40_000);
    let svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><style>{rules}</style>{texts}</svg>"#
    );
    let dir = bundle_with("financial_trends.svg", svg.as_bytes());
    rejected_with("rules x elements", dir.path(), "svg.too_complex");

    let rules: String = (0..2_000)
        .map(|i| format!("x g g g g g g .c{i}{{font-size:1px}}"))
        .collect();
    let deep = format!(
        "{}{}{}",
        "<g>".repeat(60),
        "<text class='c1' x='1' y='1'>a</text>".repeat(200),
        "</g>".repeat(60)
    );
    let svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><style>{rules}</style>{deep}</svg>"#
    );
    let r = verify_dir(bundle_with("financial_trends.svg", svg.as_bytes()).path());
    assert!(has(&r, "svg.panel_count", Status::Fail), "read to the end");
}

#[test]
fn memo_sentences_and_tables_of_any_size_cost_bounded_work() {
    let verify_memo = |text: &str| {
        verify_northstar(with_file(
            northstar_files(),
            "investment_analysis.md",
            text.as_bytes().to_vec(),
        ))
    };
    // One sentence of 20,000 figures: attribution compared every number with every other and
    // every year (cubic: 100 figures took 9.8 s in a debug build), and each claim copied the
    // 500 KB sentence (10.9 GB). Now its figures are unverified, and the report is small.
    let sentence: Vec<String> = (0..20_000)
        .map(|i| format!("${i}.5 million in FY2025,"))
        .collect();
    let memo = format!("Revenue {}\n", sentence.join(" "));
    let r = verify_memo(&memo);
    let counts = r
        .coverage
        .iter()
        .find(|(a, _)| a.ends_with(".md"))
        .map(|(_, c)| *c)
        .expect("memo coverage");
    assert_eq!(counts.contradicted, 0);
    assert!(counts.unverified >= 20_000, "{counts:?}");
    // A 300 × 300 table: 90,000 figures, past the memo's 20,000: too complex, none judged.
    let table = format!(
        "| Metric |{}\n|{}\n{}",
        " FY2025 |".repeat(300),
        "---|".repeat(301),
        format!("| Revenue |{}\n", " $1.0 |".repeat(300)).repeat(300)
    );
    let r = verify_memo(&table);
    assert!(has(&r, "memo.too_complex", Status::Fail));
}
