//! One verification: a loaded bundle against the statements, under a spec.

use crate::bundle::Bundle;
use crate::checks::{self, Context};
use crate::recompute::Truth;
use crate::report::{Family, Report, Status};
use crate::source::Statements;
use crate::spec::Spec;

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
    checks::svg::check(&ctx, &mut findings);
    checks::script::check(&ctx, &mut findings);
    if ctx.truth.is_some() {
        let metrics = checks::metrics::check(&ctx, &mut findings);
        let movements = checks::movements::check(&ctx, &metrics, &mut findings);
        let memo = checks::memo::check(&ctx, &metrics, &mut findings);
        checks::consistency::check(&ctx, &metrics, &movements, &memo, &manifest, &mut findings);
        checked.extend([
            Family::Metrics,
            Family::Movements,
            Family::Memo,
            Family::Consistency,
        ]);
    }
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
