//! The embedded spec and the contract document say the same thing: metric ids and synonyms,
//! source names and aliases, flag thresholds, memo sections, artifact names. The document is
//! `verifiers/financial-analyst.md` (a copy of the shared contract; when the shared original is
//! reachable at `../shared/spec/`, the copy must equal it).

use crate::support::root;
use vouch::names::fold;
use vouch::numbers::parse_decimal;

fn contract() -> String {
    std::fs::read_to_string(root().join("verifiers/financial-analyst.md")).unwrap()
}

fn section<'a>(doc: &'a str, heading: &str) -> &'a str {
    let start = doc
        .find(heading)
        .unwrap_or_else(|| panic!("no section {heading}"));
    let rest = &doc[start + heading.len()..];
    let end = rest.find("\n## ").unwrap_or(rest.len());
    &rest[..end]
}

/// Rows of the first Markdown table in `text`, as trimmed cells (header and rule rows dropped).
fn table_rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .filter(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| {
            // `\|` inside a cell is an escaped pipe, not a separator.
            l.replace("\\|", "\u{1}")
                .trim_matches('|')
                .split('|')
                .map(|c| c.trim().replace('\u{1}', "|"))
                .collect()
        })
        .collect()
}

#[test]
fn the_committed_contract_is_the_shared_one() {
    let shared = root().join("../shared/spec/financial-analyst.md");
    if let Ok(text) = std::fs::read_to_string(shared) {
        assert_eq!(
            text,
            contract(),
            "verifiers/financial-analyst.md drifted from the shared contract"
        );
    }
}

#[test]
fn metric_ids_and_synonyms_agree() {
    let spec = vouch::Spec::default_spec();
    let doc = contract();
    let s2 = section(&doc, "## 2. Metrics");
    let ids: Vec<String> = table_rows(s2).into_iter().map(|r| r[0].clone()).collect();
    let spec_ids: Vec<String> = spec.metrics.iter().map(|m| m.id.clone()).collect();
    assert_eq!(ids, spec_ids);
    let syn = &s2[s2.find("Synonyms (after folding):").unwrap()..];
    let syn = &syn[..syn.find("The spec file holds").unwrap()];
    for clause in syn
        .trim_start_matches("Synonyms (after folding):")
        .split(';')
    {
        let (id, names) = clause.split_once('←').expect("id ← names");
        let m = spec
            .metric_index(id.trim())
            .unwrap_or_else(|| panic!("{id}"));
        for n in names.split(',') {
            let n = n.trim().trim_end_matches('.');
            assert!(
                spec.metrics[m].synonyms.iter().any(|s| s == n),
                "{id}: synonym {n} missing from the spec"
            );
        }
    }
}

#[test]
fn source_names_and_aliases_agree() {
    let spec = vouch::Spec::default_spec();
    let doc = contract();
    for row in table_rows(section(&doc, "## 1. The source CSV")) {
        let canonical = &row[0];
        let c = spec
            .column_index(canonical)
            .unwrap_or_else(|| panic!("{canonical}"));
        for alias in row[1].split(',').map(str::trim).filter(|a| !a.is_empty()) {
            assert_eq!(
                spec.column_named(&fold(alias)),
                Some(c),
                "{canonical}: alias {alias}"
            );
        }
        assert_eq!(
            spec.source.columns[c].required,
            row[2] == "yes",
            "{canonical}: required"
        );
    }
}

#[test]
fn flag_rules_and_thresholds_agree() {
    let spec = vouch::Spec::default_spec();
    let doc = contract();
    let rows = table_rows(section(&doc, "## 3. Unusual movements"));
    let ids: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    let spec_ids: Vec<&str> = spec.movements.rules.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, spec_ids);
    for (row, rule) in rows.iter().zip(&spec.movements.rules) {
        let t = vouch::numbers::show_exact(&rule.threshold);
        assert!(
            row[2].contains(&t),
            "{}: threshold {t} not in `{}`",
            rule.id,
            row[2]
        );
    }
    assert_eq!(
        spec.movements.extra_growth_threshold,
        parse_decimal("0.15").unwrap()
    );
}

#[test]
fn memo_sections_and_artifacts_agree() {
    let spec = vouch::Spec::default_spec();
    let doc = contract();
    let s5 = section(&doc, "## 5. The memo");
    let list = &s5[s5.find("in this order:").unwrap() + "in this order:".len()..];
    let list = &list[..list.find(". Bold lines").unwrap()];
    let names: Vec<String> = list
        .split(',')
        .map(|n| n.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(names, spec.memo.sections);
    for a in spec.artifacts.all() {
        assert!(doc.contains(a), "{a} not named in the contract");
    }
    assert!(
        section(&doc, "## 8.").contains("16 MiB") && spec.limits.max_artifact_bytes == 16 << 20
    );
}

/// `fixtures/specs/<case>/`: a contract edit made by spec alone. `edit.toml` holds `about` and
/// `[[replace]]` edits (`from` must occur exactly once in the embedded spec); the case's other
/// files overlay the Northstar bundle (`source.csv` replaces the source); `expect.txt` lists
/// `verdict accept|reject` and `<status> <check id>` lines the verification must produce.
#[test]
fn contract_edits_are_spec_edits_plus_a_fixture() {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Edit {
        about: String,
        #[serde(default)]
        replace: Vec<Replace>,
    }
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Replace {
        from: String,
        to: String,
    }
    let dir = crate::support::root().join("fixtures/specs");
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    cases.sort();
    assert!(cases.len() >= 4);
    let mut problems = Vec::new();
    for case in &cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let edit: Edit =
            toml::from_str(&std::fs::read_to_string(case.join("edit.toml")).unwrap()).unwrap();
        assert!(!edit.about.is_empty(), "{name}");
        let mut text = vouch::spec::DEFAULT_SPEC.to_string();
        for r in &edit.replace {
            assert_eq!(
                text.matches(&r.from).count(),
                1,
                "{name}: `{}` must occur once in the spec",
                r.from
            );
            text = text.replace(&r.from, &r.to);
        }
        let spec = vouch::Spec::parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut files = crate::support::northstar_files();
        let mut source = crate::support::northstar_source_text();
        for (file, bytes) in crate::support::read_dir_files(case) {
            match file.as_str() {
                "edit.toml" | "expect.txt" => {}
                "source.csv" => source = String::from_utf8(bytes).unwrap(),
                _ => files = crate::support::with_file(files, &file, bytes),
            }
        }
        let source_name = "northstar_cloud_financial_statements.csv";
        let report = match vouch::source::Statements::read_bytes(
            source_name,
            source_name,
            source.as_bytes(),
            &spec,
        ) {
            Ok(stmts) => {
                let bundle = vouch::bundle::Bundle::from_files("memory", files, &spec);
                vouch::verify::verify(&spec, &stmts, &bundle)
            }
            Err(e) => panic!("{name}: the source does not read: {e}"),
        };
        let expect = std::fs::read_to_string(case.join("expect.txt")).unwrap();
        for line in expect.lines().map(str::trim).filter(|l| !l.is_empty()) {
            let (what, arg) = line.split_once(' ').unwrap();
            let ok = match what {
                "verdict" => {
                    let v = format!("{:?}", report.verdict()).to_lowercase();
                    v == arg
                }
                status => crate::support::has(
                    &report,
                    arg,
                    match status {
                        "fail" => vouch::Status::Fail,
                        "warn" => vouch::Status::Warn,
                        _ => vouch::Status::Info,
                    },
                ),
            };
            if !ok {
                problems.push(format!(
                    "{name} ({}): expected `{line}`, got:\n{}",
                    edit.about,
                    crate::support::dump(&report)
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A manifest claim tested against a fact vouch does not know fails the spec's load (it used
/// to load, and the claim went untested).
#[test]
fn a_spec_naming_an_unknown_fact_does_not_load() {
    let text = vouch::spec::DEFAULT_SPEC.replacen(
        "fact = \"required_columns_present\"",
        "fact = \"no_such_fact\"",
        1,
    );
    assert_ne!(text, vouch::spec::DEFAULT_SPEC);
    let err = vouch::Spec::parse(&text).unwrap_err().to_string();
    assert!(err.contains("no_such_fact"), "{err}");
    // The thresholds the memo may quote come from the movement rules, once.
    let spec = vouch::Spec::default_spec();
    assert!(!vouch::spec::DEFAULT_SPEC.contains("threshold_numbers"));
    assert_eq!(
        spec.threshold_numbers.len(),
        6,
        "{:?}",
        spec.threshold_numbers
    );
}
