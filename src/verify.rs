//! One verification: a loaded bundle against the statements, under a spec.

use crate::bundle::Bundle;
use crate::checks::{self, Context};
use crate::recompute::Truth;
use crate::report::{Family, Finding, Report, Status};
use crate::source::Statements;
use crate::spec::Spec;

/// What the families other than the script's found (see [`verify_with`]).
#[derive(Default)]
struct Rest {
    svg: Vec<Finding>,
    later: Vec<Finding>,
    checked: Vec<Family>,
}

/// Verify `bundle` against `stmts`. Never fails: every problem is a finding.
pub fn verify(spec: &Spec, stmts: &Statements, bundle: &Bundle) -> Report {
    let truth = stmts
        .valid_years()
        .map(|years| Truth::compute(spec, stmts, &years));
    verify_with(spec, stmts, truth.as_ref(), bundle)
}

/// Verify with a truth computed once (audits share it across bundles of one source).
pub fn verify_with(
    spec: &Spec,
    stmts: &Statements,
    truth: Option<&Truth>,
    bundle: &Bundle,
) -> Report {
    let mut findings = bundle.findings.clone();
    checks::source::check(stmts, &mut findings);
    let source_faulty = findings
        .iter()
        .any(|f| f.status == Status::Fail && f.family() == "source");
    let ctx = Context {
        spec,
        stmts,
        truth: if source_faulty { None } else { truth },
        bundle,
    };
    let mut checked = vec![
        Family::Bundle,
        Family::Source,
        Family::Svg,
        Family::Script,
        Family::Manifest,
    ];
    let manifest = checks::manifest::check(&ctx, &mut findings);
    // The script family (a full Python parse) is independent of the others: it runs on this
    // thread while the rest runs on a scoped one, and the findings are joined in family order,
    // so the report is the same as a sequential run.
    let rest = || -> Rest {
        let mut r = Rest::default();
        checks::svg::check(&ctx, &mut r.svg);
        if ctx.truth.is_some() {
            let metrics = checks::metrics::check(&ctx, &mut r.later);
            let movements = checks::movements::check(&ctx, &metrics, &mut r.later);
            let memo = checks::memo::check(&ctx, &metrics, &mut r.later);
            checks::consistency::check(&ctx, &metrics, &movements, &memo, &manifest, &mut r.later);
            r.checked.extend([
                Family::Metrics,
                Family::Movements,
                Family::Memo,
                Family::Consistency,
            ]);
        }
        r
    };
    let mut script = Vec::new();
    let rest = std::thread::scope(|s| {
        let worker = std::thread::Builder::new()
            .name("vouch-verify".into())
            .spawn_scoped(s, rest);
        checks::script::check(&ctx, &mut script);
        match worker {
            Ok(handle) => handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            // No thread to be had (a process limit): run the rest here.
            Err(_) => rest(),
        }
    });
    findings.extend(rest.svg);
    findings.extend(script);
    findings.extend(rest.later);
    checked.extend(rest.checked);
    checked.sort();
    debug_assert!(
        findings
            .iter()
            .all(|f| crate::report::registry::find(f.id).is_some()),
        "every emitted id is registered"
    );
    Report {
        bundle: bundle.origin.clone(),
        source: stmts.path.clone(),
        source_sha256: stmts.sha256.clone(),
        spec: format!("{} v{}", spec.contract.id, spec.contract.version),
        artifacts: bundle.digests(),
        families_checked: checked,
        findings,
    }
}
