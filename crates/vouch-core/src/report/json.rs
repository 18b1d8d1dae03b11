//! The JSON report: a versioned schema with a top-level `verdict` and a list `checks`.

use super::{Report, Status};
use serde_json::{json, Value};

/// Bump when a field changes meaning or disappears; adding fields keeps the version.
/// Version 2 (this one): a finding's `interval` is `[lo, hi]`, `recomputed` and `k` are JSON
/// numbers (`printed` stays the text as printed); a recomputation that has no value is
/// `recomputed: null` with its reason in `recomputed_text`. The schema is
/// `docs/schema/report.schema.json`.
pub const SCHEMA_VERSION: u32 = 2;

/// A decimal as a JSON number; `None` when the text is not one.
fn number(text: &str) -> Option<Value> {
    let t = text.trim();
    let looks = !t.is_empty()
        && t.chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | 'e' | 'E'));
    if !looks {
        return None;
    }
    match serde_json::from_str::<Value>(t) {
        Ok(v @ Value::Number(_)) => Some(v),
        _ => t
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .map(|x| json!(x)),
    }
}

/// `[lo, hi]` from the interval's text (`[a, b]`, or one number for an exact value).
fn interval(text: &str) -> Option<Value> {
    let t = text.trim();
    if let Some(inner) = t.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        let (a, b) = inner.split_once(',')?;
        return Some(json!([number(a)?, number(b)?]));
    }
    let x = number(t)?;
    Some(json!([x.clone(), x]))
}

/// One finding as the v2 schema has it.
fn finding(f: &super::Finding) -> Value {
    let mut v = serde_json::to_value(f).expect("findings serialize");
    let Some(n) = &f.number else { return v };
    let obj = v.as_object_mut().expect("a finding is an object");
    match n.interval.as_deref().map(|i| (i, interval(i))) {
        Some((_, Some(iv))) => {
            obj.insert("interval".into(), iv);
        }
        Some((text, None)) => {
            obj.remove("interval");
            obj.insert("interval_text".into(), json!(text));
        }
        None => {}
    }
    if let Some(r) = n.recomputed.as_deref() {
        match number(r) {
            Some(x) => {
                obj.insert("recomputed".into(), x);
            }
            None => {
                obj.insert("recomputed".into(), Value::Null);
                match interval(r) {
                    Some(iv) => obj.insert("recomputed_interval".into(), iv),
                    None => obj.insert("recomputed_text".into(), json!(r)),
                };
            }
        }
    }
    if let Some(k) = n.k.as_deref() {
        obj.insert("k".into(), number(k).unwrap_or(Value::Null));
    }
    v
}

pub fn render(report: &Report) -> String {
    let mut checks: Vec<Value> = report.findings.iter().map(finding).collect();
    let summary = report.check_summary();
    for (def, worst) in &summary {
        match worst {
            Status::Pass => {
                checks.push(json!({ "id": def.id, "status": "pass", "message": def.meaning }))
            }
            Status::Skipped => checks.push(json!({
                "id": def.id,
                "status": "skipped",
                "message": def.meaning,
                "reason": report.skip_reason(def),
            })),
            _ => {}
        }
    }
    let checks_with = |s: Status| summary.iter().filter(|(_, w)| *w == s).count();
    let not_checked: Vec<&str> = report
        .families_not_checked()
        .iter()
        .map(|f| f.as_str())
        .collect();
    let doc = json!({
        "schema": "vouch.report",
        "schema_version": SCHEMA_VERSION,
        "vouch_version": env!("CARGO_PKG_VERSION"),
        "verdict": report.verdict(),
        "source_faulty": report.source_faulty(),
        "bundle": report.bundle,
        "source": { "path": report.source, "sha256": report.source_sha256 },
        "spec": report.spec,
        "artifacts": report.artifacts,
        "families_checked": report.families_checked,
        "families_not_checked": not_checked,
        "summary": {
            "fail": report.count(Status::Fail),
            "warn": report.count(Status::Warn),
            "info": report.count(Status::Info),
            "checks": {
                "fail": checks_with(Status::Fail),
                "warn": checks_with(Status::Warn),
                "info": checks_with(Status::Info),
                "pass": checks_with(Status::Pass),
                "skipped": checks_with(Status::Skipped),
            },
        },
        "coverage": report
            .coverage
            .iter()
            .map(|(a, c)| (a.clone(), serde_json::to_value(c).expect("coverage serializes")))
            .collect::<serde_json::Map<String, Value>>(),
        "checks": checks,
    });
    let mut s = serde_json::to_string_pretty(&doc).expect("report serializes");
    s.push('\n');
    s
}
