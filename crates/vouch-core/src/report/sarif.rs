//! SARIF 2.1.0 (the static-analysis interchange format code-scanning dashboards read): one run of
//! the tool `vouch`, every registered check as a rule, one result per finding on the artifact
//! and line it names, the numbers behind it as result properties; the verdict, the coverage and
//! the skipped checks as run properties.

use super::{registry, Finding, Report, Status};
use serde_json::{json, Map, Value};

/// `path` as a relative URI reference: unreserved characters and `/` as they are, every other
/// byte percent-encoded (SARIF §3.10: artifact locations are URIs).
pub fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

pub fn level(status: Status) -> &'static str {
    match status {
        Status::Fail => "error",
        Status::Warn => "warning",
        _ => "note",
    }
}

/// Every registered check as a SARIF rule, in registry order (a result's `ruleIndex` points here).
pub fn rules() -> Vec<Value> {
    registry::all()
        .iter()
        .map(|c| {
            json!({
                "id": c.id,
                "shortDescription": { "text": c.meaning },
                "fullDescription": { "text": c.why },
                "help": { "text": c.fix },
                "defaultConfiguration": { "level": level(c.severity) },
                "properties": { "family": c.family.as_str() },
            })
        })
        .collect()
}

pub fn rule_index(id: &str) -> Option<usize> {
    registry::all().iter().position(|c| c.id == id)
}

/// The SARIF document around `results`, with `properties` on its one run (the audit adds the
/// run's `invocations` before [`text`] writes it).
pub fn document(results: Vec<Value>, properties: Value) -> Value {
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "vouch",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules(),
            }},
            "results": results,
            "properties": properties,
        }],
    })
}

/// A SARIF document as the file's text.
pub fn text(doc: &Value) -> String {
    let mut s = serde_json::to_string_pretty(doc).expect("SARIF serializes");
    s.push('\n');
    s
}

/// One result: `file` (a path) and `line` where it is shown.
pub fn result(
    id: &str,
    status: Status,
    text: &str,
    file: Option<&str>,
    line: Option<usize>,
    properties: Map<String, Value>,
) -> Value {
    let mut r = json!({
        "ruleId": id,
        "level": level(status),
        "message": { "text": text },
    });
    if let Some(i) = rule_index(id) {
        r["ruleIndex"] = json!(i);
    }
    if let Some(f) = file {
        let mut physical = json!({ "artifactLocation": { "uri": uri(f) } });
        if let Some(l) = line {
            physical["region"] = json!({ "startLine": l });
        }
        r["locations"] = json!([{ "physicalLocation": physical }]);
    }
    if !properties.is_empty() {
        r["properties"] = Value::Object(properties);
    }
    r
}

fn finding_properties(f: &Finding) -> Map<String, Value> {
    let mut p = Map::new();
    let loc = &f.location;
    if let Some(r) = loc.row {
        p.insert("row".into(), json!(r));
    }
    if let Some(c) = &loc.column {
        p.insert("column".into(), json!(c));
    }
    if let Some(y) = loc.year {
        p.insert("year".into(), json!(y));
    }
    if let Some(n) = &f.number {
        if let Value::Object(m) = serde_json::to_value(n).expect("numbers serialize") {
            p.extend(m);
        }
    }
    p
}

pub fn render(report: &Report) -> String {
    let results = report
        .findings
        .iter()
        .map(|f| {
            let file = f
                .artifact
                .as_ref()
                .map(|a| format!("{}/{a}", report.bundle.trim_end_matches('/')));
            result(
                f.id.as_str(),
                f.status,
                &f.message,
                file.as_deref(),
                f.location.line,
                finding_properties(f),
            )
        })
        .collect();
    let summary = report.check_summary();
    let skipped: Vec<Value> = summary
        .iter()
        .filter(|(_, s)| *s == Status::Skipped)
        .map(|(d, _)| json!({ "id": d.id, "reason": report.skip_reason(d) }))
        .collect();
    let properties = json!({
        "verdict": report.verdict(),
        "bundle": report.bundle,
        "source": { "path": report.source, "sha256": report.source_sha256 },
        "source_faulty": report.source_faulty(),
        "coverage": report
            .coverage
            .iter()
            .map(|(a, c)| (a.clone(), serde_json::to_value(c).expect("coverage serializes")))
            .collect::<Map<String, Value>>(),
        "skipped": skipped,
    });
    text(&document(results, properties))
}
