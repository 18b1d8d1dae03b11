//! The JSON report: a versioned schema with a top-level `verdict` and a list `checks`.

use super::{Report, Status};
use serde_json::{json, Value};

/// Bump when a field changes meaning or disappears; adding fields keeps the version.
pub const SCHEMA_VERSION: u32 = 1;

pub fn render(report: &Report) -> String {
    let mut checks: Vec<Value> = report
        .findings
        .iter()
        .map(|f| serde_json::to_value(f).expect("findings serialize"))
        .collect();
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
