//! `manifest.*`: every rule of contract §6 for `analysis_run.json`, each claim tested against what
//! vouch itself found in the source and the bundle.

use crate::checks::{line_at, Context};
use crate::report::registry::CheckDef;
use crate::report::CheckId;
use crate::report::{Family, Finding, Location};
use crate::source::SourceFacts;
use serde_json::{Map, Value};

pub const CHECKS: &[CheckDef] = crate::checks![Family::Manifest;
    CheckId::ManifestUnreadable, Fail, "analysis_run.json is not UTF-8 text (or holds a NUL byte).",
        why: "`analysis_run.json` is not UTF-8 text (or holds a NUL byte), so none of the run's own claims (input, rows, years, validation, outputs) was checked.",
        fix: "Write the manifest with `json.dump` to a file opened with `encoding='utf-8'`.";
    CheckId::ManifestParse, Fail, "analysis_run.json is not a JSON object (or nests too deeply).",
        why: "A manifest that is not a JSON object (invalid JSON, a list, too deeply nested) cannot be read by vouch or other tools, so the run's account of itself is lost.",
        fix: "Write one JSON object, e.g. `json.dump(manifest, f, indent=2)` from a Python dict, and check that `json.load` reads it back.";
    CheckId::ManifestDuplicateKey, Warn, "An object in analysis_run.json holds one key twice: JSON readers differ on which counts (vouch, like Python's json, reads the last), so a reader may see another claim than vouch checked.",
        why: "A key given twice in one object means readers may disagree on the claim: vouch and Python's `json` keep the last, other parsers the first, so a reader may see another value than vouch checked.",
        fix: "Write each key once per object; build the manifest as a Python dict and `json.dump` it instead of assembling JSON text by hand.";
    CheckId::ManifestMissingKey, Fail, "A required key is absent.",
        why: "A required key is absent, so the run does not state that fact about itself (input, rows, years, validation, outputs or directory) and it cannot be checked.",
        fix: "Add the key named in the finding; `input_filename`, `row_count`, `year_range`, `validation_results`, `generated_filenames` and `execution_directory` are all required.";
    CheckId::ManifestInputFilename, Fail, "input_filename (base name, upload prefix stripped) is not the source's file name.",
        why: "If `input_filename` does not name the source the bundle is checked against, the run may have analysed another file, and its figures would come from the wrong data.",
        fix: "Set `input_filename` to the name of the file the script read (a path or upload prefix is fine); if the agent was given the source under another name, pass `--source-name`.";
    CheckId::ManifestRowCount, Fail, "row_count differs from the source's number of rows.",
        why: "A `row_count` different from the source's data rows says the script read another or partial file, or counted the header, so its figures may not cover the data.",
        fix: "Set `row_count` to the number of data rows the script actually read, header excluded.";
    CheckId::ManifestYearRange, Fail, "year_range is malformed or differs from the source's first and last year.",
        why: "A malformed `year_range`, or one that differs from the source's first and last year, misstates the period the analysis covers.",
        fix: "Write `year_range` as `[first, last]`, a `first-last` string or an object with `start` and `end` (or `first` and `last`, `from` and `to`), using the integer first and last years the script read.";
    CheckId::ManifestValidationResults, Fail, "validation_results is not an object.",
        why: "A `validation_results` that is not a JSON object cannot hold the run's named validation claims, so whether the script validated the source is unstated and unchecked.",
        fix: "Write `validation_results` as a JSON object of named booleans, including `accounting_equation_passed_every_row`.";
    CheckId::ManifestIdentityClaim, Fail, "accounting_equation_passed_every_row is absent, not a boolean, or not what vouch found.",
        why: "The `accounting_equation_passed_every_row` claim is absent, not a boolean or contradicts vouch's own test, so the reader is misinformed about the balance sheet; info when some rows cannot be tested.",
        fix: "Test assets = liabilities + equity in every row with rounding tolerance and write the result as a JSON boolean under the key named by `manifest.identity_claim`.";
    CheckId::ManifestClaim, Fail, "A known validation claim (columns present, values numeric, years ordered) contradicts the source.",
        why: "An optional validation claim (columns present, values numeric, years unique and ordered) is not a boolean or says the opposite of what vouch found, so the run misreports the state of its input.",
        fix: "Compute each claim listed in `manifest.claims` from the data the script read and write it as a JSON boolean, or omit claims the script did not test.";
    CheckId::ManifestScriptNotListed, Warn, "generated_filenames lists the five outputs but not the script itself (contract §9)",
        why: "`generated_filenames` lists the five outputs but not `analyze_financials.py`, so the manifest does not name every artifact of the run, including the code that produced the figures.",
        fix: "Add `analyze_financials.py` (or `/mnt/data/analyze_financials.py`) to `generated_filenames`.";
    CheckId::ManifestGeneratedFilenames, Fail, "generated_filenames is not a list of names under /mnt/data including all six artifacts, or lists a file the bundle lacks.",
        why: "If `generated_filenames` is not a list of names directly under `/mnt/data` covering all six artifacts, or lists a file the bundle lacks, the manifest misreports what the run produced.",
        fix: "List the base names or `/mnt/data/` paths of the files the script wrote, all six artifacts included, and ship every listed file in the bundle.";
    CheckId::ManifestExecutionDirectory, Fail, "execution_directory is not /mnt/data.",
        why: "An `execution_directory` other than `manifest.execution_directory` (`/mnt/data`) says the script ran somewhere else, so its inputs and outputs may not be the ones in the bundle.",
        fix: "Run the script in `/mnt/data` and write that path as `execution_directory` (a trailing slash is accepted).";
];

/// What the manifest claimed, for the consistency checks.
#[derive(Clone, Debug, Default)]
pub struct ManifestReading {
    /// `(first, last)` of `year_range`, when it parsed.
    pub year_range: Option<(i32, i32)>,
    /// `input_filename` when it is a string that names the source otherwise than the user's
    /// copy is named (see `Context::source_alias`).
    pub input_filename: Option<String>,
}

pub use crate::names::upload_base_name;

/// The key pairs an object `year_range` may name its first and last year by.
const YEAR_RANGE_KEYS: [(&str, &str); 7] = [
    ("start", "end"),
    ("first", "last"),
    ("from", "to"),
    ("begin", "end"),
    ("start_year", "end_year"),
    ("first_year", "last_year"),
    ("min", "max"),
];

/// Read `year_range` in any of its accepted shapes.
pub fn parse_year_range(v: &Value) -> Option<(i32, i32)> {
    // An integer, or a fiscal-year label string (`"FY2020"`) as the source's own rows may be.
    let year = |v: &Value| -> Option<i32> {
        match v {
            Value::String(s) => crate::names::parse_fy_label(s),
            _ => v.as_i64().and_then(|y| i32::try_from(y).ok()),
        }
    };
    match v {
        Value::Array(a) if a.len() == 2 => Some((year(&a[0])?, year(&a[1])?)),
        // `{"start", "end"}`, or the same pair under another common name (`first`/`last`,
        // `from`/`to`, …); every pair present must agree, and other keys (a label, the list of
        // years) are not read.
        Value::Object(o) => {
            let mut found = None;
            for (a, b) in YEAR_RANGE_KEYS {
                match (o.get(a), o.get(b)) {
                    (None, None) => continue,
                    (Some(x), Some(y)) => {
                        let pair = (year(x)?, year(y)?);
                        if found.is_some_and(|f| f != pair) {
                            return None;
                        }
                        found = Some(pair);
                    }
                    // Half a pair (`end` alone belongs to `start` or `begin`).
                    _ => continue,
                }
            }
            found
        }
        Value::String(s) => {
            let (a, b) = s.split_once(['-', '–', '—'])?;
            let p = |x: &str| -> Option<i32> {
                let x = x.trim();
                let x = x.strip_prefix("FY").unwrap_or(x);
                (x.len() == 4 && x.bytes().all(|b| b.is_ascii_digit())).then(|| x.parse().ok())?
            };
            Some((p(a)?, p(b)?))
        }
        _ => None,
    }
}

/// A claimable fact by name; the inner `None` when vouch cannot determine it for this source.
/// What the source says of a fact; `None` when it cannot be told (a number too long to read).
fn fact(facts: &SourceFacts, fact: crate::spec::Fact) -> Option<bool> {
    use crate::spec::Fact;
    match fact {
        Fact::RequiredColumnsPresent => Some(facts.required_columns_present),
        Fact::NumericValuesValid => facts.numeric_values_valid,
        Fact::YearsUniqueAndOrdered => Some(facts.years_unique_and_ordered),
    }
}

pub fn check(ctx: &Context, out: &mut Vec<Finding>) -> ManifestReading {
    let name = ctx.spec.artifacts.manifest.as_str();
    let mut reading = ManifestReading::default();
    let Some(text) = ctx.text(name, CheckId::ManifestUnreadable, out) else {
        return reading;
    };
    let Some(obj) = read_object(text, name, out) else {
        return reading;
    };
    report_duplicate_keys(text, name, out);
    // Every required key first (their absence is reported before any value is judged).
    let mut get = |key: &str| -> Option<&Value> {
        let v = obj.get(key);
        if v.is_none() {
            out.push(
                Finding::fail(
                    CheckId::ManifestMissingKey,
                    format!("required key `{key}` is absent"),
                )
                .artifact(name),
            );
        }
        v
    };
    let input = get("input_filename").cloned();
    let rows = get("row_count").cloned();
    let range = get("year_range").cloned();
    let validation = get("validation_results").cloned();
    let generated = get("generated_filenames").cloned();
    let exec = get("execution_directory").cloned();
    if let Some(v) = input {
        check_input(ctx, &v, text, &mut reading, out);
    }
    if let Some(v) = rows {
        check_rows(ctx, &v, text, out);
    }
    if let Some(v) = range {
        check_year_range(ctx, &v, text, &mut reading, out);
    }
    if let Some(v) = validation {
        check_validation(ctx, &v, text, out);
    }
    if let Some(v) = generated {
        check_generated(
            ctx,
            &v,
            name,
            key_location(text, "generated_filenames"),
            out,
        );
    }
    if let Some(v) = exec {
        check_execution_directory(ctx, &v, text, out);
    }
    reading
}

/// The manifest's top-level object, or a `manifest.parse` finding.
fn read_object(text: &str, name: &str, out: &mut Vec<Finding>) -> Option<Map<String, Value>> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(o)) => Some(o),
        Ok(other) => {
            out.push(
                Finding::fail(
                    CheckId::ManifestParse,
                    format!("the top level is a {}, not an object", kind(&other)),
                )
                .artifact(name),
            );
            None
        }
        Err(e) => {
            out.push(
                Finding::fail(CheckId::ManifestParse, format!("not valid JSON: {e}"))
                    .artifact(name)
                    .line(e.line()),
            );
            None
        }
    }
}

/// A `manifest.duplicate_key` warning for every key given twice in one object.
fn report_duplicate_keys(text: &str, name: &str, out: &mut Vec<Finding>) {
    for path in duplicate_keys(text) {
        let key = path.rsplit('.').next().unwrap_or(&path).to_string();
        let needle = format!("\"{key}\"");
        let lines: Vec<usize> = text
            .match_indices(&needle)
            .take(3)
            .map(|(at, _)| line_at(text, at))
            .collect();
        out.push(
            Finding::warn(
                CheckId::ManifestDuplicateKey,
                format!("`{path}` is given more than once; vouch reads the last, and another reader may read the first"),
            )
            .artifact(name)
            .at(Location {
                line: lines.get(1).or(lines.first()).copied(),
                column: Some(key),
                ..Default::default()
            }),
        );
    }
}

/// Where a key is first written: its line, and the key as the column.
fn key_location(text: &str, key: &str) -> Location {
    let needle = format!("\"{key}\"");
    Location {
        line: text.find(&needle).map(|at| line_at(text, at)),
        column: Some(key.to_string()),
        ..Default::default()
    }
}

/// `input_filename`: the source's name, an upload prefix allowed.
fn check_input(
    ctx: &Context,
    v: &Value,
    text: &str,
    reading: &mut ManifestReading,
    out: &mut Vec<Finding>,
) {
    let (stmts, name) = (ctx.stmts, ctx.spec.artifacts.manifest.as_str());
    match v.as_str() {
        Some(s) if crate::names::same_upload(s, &stmts.file_name) => {}
        other => {
            if let Some(s) = other.filter(|s| !s.trim().is_empty()) {
                reading.input_filename = Some(s.to_string());
            }
            out.push(
                Finding::fail(
                    CheckId::ManifestInputFilename,
                    format!(
                        "input_filename is {v}; its base name, without an upload prefix, must be `{}` \
                         (if the agent was given the source under that other name, say so with \
                         `--source-name`; a run directory's run.json records it)",
                        upload_base_name(&stmts.file_name)
                    ),
                )
                .artifact(name)
                .at(key_location(text, "input_filename")),
            )
        }
    }
}

/// `row_count`: the source's data rows.
fn check_rows(ctx: &Context, v: &Value, text: &str, out: &mut Vec<Finding>) {
    let (stmts, name) = (ctx.stmts, ctx.spec.artifacts.manifest.as_str());
    if v.as_u64() != Some(stmts.rows as u64) {
        out.push(
            Finding::fail(
                CheckId::ManifestRowCount,
                format!("row_count is {v}; the source has {} rows", stmts.rows),
            )
            .artifact(name)
            .at(key_location(text, "row_count")),
        );
    }
}

/// `year_range`: the source's first and last years.
fn check_year_range(
    ctx: &Context,
    v: &Value,
    text: &str,
    reading: &mut ManifestReading,
    out: &mut Vec<Finding>,
) {
    let (stmts, name) = (ctx.stmts, ctx.spec.artifacts.manifest.as_str());
    let source_range = stmts
        .valid_years()
        .and_then(|y| Some((*y.first()?, *y.last()?)));
    match parse_year_range(v) {
        None => out.push(
            Finding::fail(
                CheckId::ManifestYearRange,
                format!("year_range {v} is not [first, last], \"first-last\" or {{\"start\", \"end\"}} (or first/last, from/to) with integer years"),
            )
            .artifact(name)
            .at(key_location(text, "year_range")),
        ),
        Some(r) => {
            reading.year_range = Some(r);
            if let Some(s) = source_range {
                if r != s {
                    out.push(
                        Finding::fail(
                            CheckId::ManifestYearRange,
                            format!("year_range is {}–{}; the source covers {}–{}", r.0, r.1, s.0, s.1),
                        )
                        .artifact(name)
                        .at(key_location(text, "year_range")),
                    );
                }
            }
        }
    }
}

/// `validation_results`: an object whose identity claim and optional claims say what vouch
/// found in the source (info where vouch cannot tell).
fn check_validation(ctx: &Context, v: &Value, text: &str, out: &mut Vec<Finding>) {
    let name = ctx.spec.artifacts.manifest.as_str();
    match v.as_object() {
        None => out.push(
            Finding::fail(
                CheckId::ManifestValidationResults,
                format!("validation_results is a {}, not an object", kind(v)),
            )
            .artifact(name)
            .at(key_location(text, "validation_results")),
        ),
        Some(vr) => {
            check_identity_claim(ctx, vr, text, out);
            check_claims(ctx, vr, text, out);
        }
    }
}

/// The identity claim (`manifest.identity_claim`) of `validation_results`.
fn check_identity_claim(
    ctx: &Context,
    vr: &Map<String, Value>,
    text: &str,
    out: &mut Vec<Finding>,
) {
    let (spec, stmts) = (ctx.spec, ctx.stmts);
    let name = spec.artifacts.manifest.as_str();
    let facts = stmts.facts();
    let key = spec.manifest.identity_claim.as_str();
    match vr.get(key) {
        None => out.push(
            Finding::fail(CheckId::ManifestIdentityClaim, format!("validation_results.{key} is absent"))
                .artifact(name)
                .at(key_location(text, "validation_results")),
        ),
        Some(Value::Bool(b)) if Some(*b) == facts.identity_every_row => {}
        Some(Value::Bool(b)) if facts.identity_every_row.is_none() => out.push(
            Finding::info(
                CheckId::ManifestIdentityClaim,
                format!(
                    "claims {key} = {b}; vouch cannot judge it: no row breaks the identity, but {} cannot be tested (a cell it needs is missing or not a number)",
                    rows_phrase(stmts.identity_untested.as_slice())
                ),
            )
            .artifact(name)
            .at(key_location(text, key)),
        ),
        Some(Value::Bool(b)) => out.push(
            Finding::fail(
                CheckId::ManifestIdentityClaim,
                format!(
                    "claims {key} = {b}, but vouch found the accounting identity {} in every row of the source",
                    if facts.identity_every_row == Some(true) { "holds" } else { "does not hold" }
                ),
            )
            .artifact(name)
            .at(key_location(text, key)),
        ),
        Some(other) => out.push(
            Finding::fail(CheckId::ManifestIdentityClaim, format!("{key} is {other}, not a JSON boolean"))
                .artifact(name)
                .at(key_location(text, key)),
        ),
    }
}

/// The optional claims (`manifest.claims`) of `validation_results`, each against its source fact.
fn check_claims(ctx: &Context, vr: &Map<String, Value>, text: &str, out: &mut Vec<Finding>) {
    let spec = ctx.spec;
    let name = spec.artifacts.manifest.as_str();
    let facts = ctx.stmts.facts();
    for claim in &spec.manifest.claims {
        let truth = fact(&facts, claim.fact);
        for n in &claim.names {
            let Some(v) = vr.get(n) else { continue };
            match (v, truth) {
                (Value::Bool(b), Some(t)) if *b == t => {}
                (Value::Bool(b), None) => out.push(
                    Finding::info(
                        CheckId::ManifestClaim,
                        format!("claims {n} = {b}; vouch cannot determine it for this source"),
                    )
                    .artifact(name)
                    .at(key_location(text, n)),
                ),
                (_, truth) => out.push(
                    Finding::fail(
                        CheckId::ManifestClaim,
                        match truth {
                            Some(t) => {
                                format!("claims {n} = {v}, but vouch found it {t} for the source")
                            }
                            None => format!("claims {n} = {v}, not a JSON boolean"),
                        },
                    )
                    .artifact(name)
                    .at(key_location(text, n)),
                ),
            }
        }
    }
}

/// `execution_directory`: the contract's (`manifest.execution_directory`).
fn check_execution_directory(ctx: &Context, v: &Value, text: &str, out: &mut Vec<Finding>) {
    let spec = ctx.spec;
    let name = spec.artifacts.manifest.as_str();
    let expected = spec.manifest.execution_directory.as_str();
    if v.as_str().map(|s| s.trim_end_matches('/')) != Some(expected) {
        out.push(
            Finding::fail(
                CheckId::ManifestExecutionDirectory,
                format!("execution_directory is {v}; expected \"{expected}\""),
            )
            .artifact(name)
            .at(key_location(text, "execution_directory")),
        );
    }
}

/// Most `generated_filenames` entries read one by one.
const MAX_LISTED: usize = 1_000;

fn check_generated(ctx: &Context, v: &Value, name: &str, loc: Location, out: &mut Vec<Finding>) {
    let Some(list) = v.as_array() else {
        out.push(
            Finding::fail(
                CheckId::ManifestGeneratedFilenames,
                format!("generated_filenames is a {}, not a list", kind(v)),
            )
            .artifact(name)
            .at(loc),
        );
        return;
    };
    // A run writes six files; a list of thousands is not read entry by entry.
    if list.len() > MAX_LISTED {
        out.push(
            Finding::fail(
                CheckId::ManifestGeneratedFilenames,
                format!(
                    "generated_filenames lists {} entries; a run writes {} files, so more than \
                     {MAX_LISTED} are not read one by one",
                    list.len(),
                    ctx.spec.artifacts.all().len()
                ),
            )
            .artifact(name)
            .at(loc),
        );
        return;
    }
    let dir = ctx.spec.manifest.execution_directory.trim_end_matches('/');
    let mut bases = Vec::new();
    for entry in list {
        let Some(s) = entry.as_str() else {
            out.push(
                Finding::fail(
                    CheckId::ManifestGeneratedFilenames,
                    format!("entry {entry} is not a string"),
                )
                .artifact(name)
                .at(loc.clone()),
            );
            continue;
        };
        let base = s.rsplit('/').next().unwrap_or(s);
        if s.contains('/') && s.strip_prefix(dir).and_then(|r| r.strip_prefix('/')) != Some(base) {
            out.push(
                Finding::fail(
                    CheckId::ManifestGeneratedFilenames,
                    format!("`{s}` is not a file directly under {dir}"),
                )
                .artifact(name)
                .at(loc.clone()),
            );
        }
        if !ctx.bundle.names.contains(base) {
            out.push(
                Finding::fail(
                    CheckId::ManifestGeneratedFilenames,
                    format!("`{s}` is listed but the bundle has no `{base}`"),
                )
                .artifact(name)
                .at(loc.clone()),
            );
        }
        bases.push(base.to_string());
    }
    let unlisted: Vec<&str> = ctx
        .spec
        .artifacts
        .all()
        .into_iter()
        .filter(|a| !bases.iter().any(|b| b == a))
        .collect();
    // Contract §9: the five outputs listed but not the script itself is a warning — the script
    // generated the others, it is not one of its own outputs to every writer.
    if let [only] = unlisted[..] {
        if only == ctx.spec.artifacts.script {
            out.push(
                Finding::warn(
                    CheckId::ManifestScriptNotListed,
                    format!(
                        "generated_filenames lists the five outputs but not `{only}` (the script that wrote them); list it too, so the manifest names every artifact of the run"
                    ),
                )
                .artifact(name)
                .at(loc),
            );
            return;
        }
    }
    for artifact in unlisted {
        {
            out.push(
                Finding::fail(
                    CheckId::ManifestGeneratedFilenames,
                    format!("`{artifact}` is not listed"),
                )
                .artifact(name)
                .at(loc.clone()),
            );
        }
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "list",
        Value::Object(_) => "object",
    }
}

/// Most duplicate keys reported.
const MAX_DUPLICATES: usize = 20;

/// Dotted paths (`validation_results.row_count`, `generated_filenames[2].name`) of keys that an
/// object holds more than once. serde_json keeps the last silently; this walks the text once
/// more with a visitor that sees every key (its nesting bounded by serde_json's own limit).
fn duplicate_keys(text: &str) -> Vec<String> {
    use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
    use std::cell::RefCell;

    struct Walk<'a> {
        path: String,
        found: &'a RefCell<Vec<String>>,
    }
    impl<'de> DeserializeSeed<'de> for Walk<'_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_any(self)
        }
    }
    impl<'de> Visitor<'de> for Walk<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("JSON")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            let mut seen = std::collections::HashSet::new();
            while let Some(key) = map.next_key::<String>()? {
                let path = if self.path.is_empty() {
                    key.clone()
                } else {
                    format!("{}.{key}", self.path)
                };
                if !seen.insert(key) {
                    let mut found = self.found.borrow_mut();
                    if found.len() < MAX_DUPLICATES && !found.contains(&path) {
                        found.push(path.clone());
                    }
                }
                map.next_value_seed(Walk {
                    path,
                    found: self.found,
                })?;
            }
            Ok(())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            let mut i = 0usize;
            while seq
                .next_element_seed(Walk {
                    path: format!("{}[{i}]", self.path),
                    found: self.found,
                })?
                .is_some()
            {
                i += 1;
            }
            Ok(())
        }
        fn visit_bool<E>(self, _: bool) -> Result<(), E> {
            Ok(())
        }
        fn visit_i64<E>(self, _: i64) -> Result<(), E> {
            Ok(())
        }
        fn visit_u64<E>(self, _: u64) -> Result<(), E> {
            Ok(())
        }
        fn visit_f64<E>(self, _: f64) -> Result<(), E> {
            Ok(())
        }
        fn visit_str<E>(self, _: &str) -> Result<(), E> {
            Ok(())
        }
        fn visit_unit<E>(self) -> Result<(), E> {
            Ok(())
        }
    }
    let found = RefCell::new(Vec::new());
    let mut de = serde_json::Deserializer::from_str(text);
    let _ = Walk {
        path: String::new(),
        found: &found,
    }
    .deserialize(&mut de);
    found.into_inner()
}

/// `row 3` or `rows 2, 3, 5 and 4 more`, for messages about source rows.
fn rows_phrase(rows: &[usize]) -> String {
    const SHOWN: usize = 5;
    let shown: Vec<String> = rows.iter().take(SHOWN).map(|r| r.to_string()).collect();
    match rows.len() {
        0 => "no row".into(),
        1 => format!("row {}", shown[0]),
        n if n <= SHOWN => format!("rows {} and {}", shown[..n - 1].join(", "), shown[n - 1]),
        n => format!("rows {} and {} more", shown.join(", "), n - SHOWN),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_every_year_range_shape() {
        assert_eq!(parse_year_range(&json!([2021, 2025])), Some((2021, 2025)));
        assert_eq!(parse_year_range(&json!("2021-2025")), Some((2021, 2025)));
        assert_eq!(
            parse_year_range(&json!({"start": 2021, "end": 2025})),
            Some((2021, 2025))
        );
        assert_eq!(parse_year_range(&json!([2021.5, 2025])), None);
        assert_eq!(parse_year_range(&json!("FY21-FY25")), None);
        // Fiscal-year labels, as a source's rows may carry them (t-bexley-fast, c-yarrow).
        assert_eq!(
            parse_year_range(&json!(["FY2020", "FY2025"])),
            Some((2020, 2025))
        );
        assert_eq!(
            parse_year_range(&json!({"first": "FY2020", "last": "FY2025"})),
            Some((2020, 2025))
        );
        assert_eq!(parse_year_range(&json!(["FYQ1", 2025])), None);
        assert_eq!(parse_year_range(&json!(["2020", 2025])), None);
        // Agents name the pair otherwise, and add a label or the years (y-meridian-fast).
        assert_eq!(
            parse_year_range(
                &json!({"first": 2019, "last": 2024, "label": "2019-2024", "years": [2019, 2024]})
            ),
            Some((2019, 2024))
        );
        assert_eq!(
            parse_year_range(&json!({"from": 2019, "to": 2024})),
            Some((2019, 2024))
        );
        assert_eq!(
            parse_year_range(&json!("FY2019-FY2024")),
            Some((2019, 2024))
        );
        // Two names that disagree, or half a pair, are not a range.
        assert_eq!(
            parse_year_range(&json!({"start": 2019, "end": 2024, "first": 2018, "last": 2024})),
            None
        );
        assert_eq!(parse_year_range(&json!({"first": 2019})), None);
        assert_eq!(parse_year_range(&json!({"label": "2019-2024"})), None);
    }
}
