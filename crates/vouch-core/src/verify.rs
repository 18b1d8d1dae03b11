//! One verification: a loaded bundle against the statements, under a spec.

use crate::bundle::Bundle;
use crate::checks::{self, Context};
use crate::recompute::Truth;
use crate::report::CheckId;
use crate::report::Coverage;
use crate::report::{Family, Finding, Report, Status};
use crate::source::Statements;
use crate::spec::Spec;

/// Stack for rayon's workers: the script family runs there, and with this much room its parse
/// and walk never need a stack of their own (the deepest nesting it accepts needs about 12 MiB; see
/// `checks::script::python`). Only the pages a verification touches are ever committed.
pub const WORKER_STACK_BYTES: usize = 16 << 20;

/// Builds rayon's global pool (`threads` workers, default one per core) with
/// [`WORKER_STACK_BYTES`] stacks, now rather than at the first verification, so that the threads
/// start while the inputs are read. Does nothing if the pool exists already.
pub fn init_pool(threads: Option<usize>) {
    let mut b = rayon::ThreadPoolBuilder::new().stack_size(WORKER_STACK_BYTES);
    if let Some(n) = threads {
        b = b.num_threads(n.max(1));
    }
    let _ = b.build_global();
}

/// Workers for verifying one bundle: one. [`verify_with`] hands one job to the pool and does the
/// other half itself, so a second worker would only cost its start-up (and asking how many cores
/// there are costs a few file reads of cgroup limits).
pub const SINGLE_BUNDLE_THREADS: usize = 1;

/// Verify `bundle` against `stmts`. Never fails: every problem is a finding.
pub fn verify(spec: &Spec, stmts: &Statements, bundle: &Bundle) -> Report {
    let truth = stmts
        .valid_years()
        .map(|years| Truth::compute(spec, stmts, &years));
    verify_with(spec, stmts, truth.as_ref(), bundle)
}

/// Verify with a truth computed once (audits share it across bundles of one source).
///
/// The chart and the script (a full Python parse) go to rayon's pool while this thread checks
/// the numbers and the memo: about half of the work each. Inside an audit's worker the job lands
/// on the worker's own queue and is stolen only by an idle thread. The findings are joined in
/// family order, so the report is the same as a sequential run's.
pub fn verify_with(
    spec: &Spec,
    stmts: &Statements,
    truth: Option<&Truth>,
    bundle: &Bundle,
) -> Report {
    let (ctx, source) = context(spec, stmts, truth, bundle);
    let mut svg = Vec::new();
    let mut svg_coverage = Coverage::default();
    let mut script = Vec::new();
    let mut parts = None;
    rayon::in_place_scope(|s| {
        s.spawn(|_| {
            svg_coverage = checks::svg::check(&ctx, &mut svg);
            checks::script::check(&ctx, &mut script);
        });
        parts = Some(Parts::check(&ctx, source, false));
    });
    let mut parts = parts.expect("the scope ran");
    parts.svg = svg;
    parts.svg_coverage = svg_coverage;
    parts.finish(spec, stmts, bundle, script)
}

/// A verification is two halves whose inputs are disjoint: the script family reads the script
/// and nothing else ([`script_half`]); every other family reads everything but the script's
/// bytes ([`rest_half`]). [`join_halves`] makes of them the report [`verify_with`] gives, so an
/// audit can share a half between runs whose inputs to it are the same bytes
/// ([`rest_key`] names those inputs).
///
/// With `cache`, the script's top-level statements are parsed once per process where scripts
/// share them byte for byte (same findings; see [`crate::read::python::ParseCache`]).
pub fn script_half(
    spec: &Spec,
    bundle: &Bundle,
    cache: Option<&crate::read::python::ParseCache>,
) -> Vec<Finding> {
    let mut script = Vec::new();
    checks::script::check_bundle_shared(spec, bundle, cache, &mut script);
    script
}

/// Every family's findings but the script's: see [`script_half`].
#[derive(Clone, Debug)]
pub struct Rest(Parts);

/// The findings of every family but the script's, as [`verify_with`] finds them (the chart under
/// the context without the manifest's source alias, as there).
pub fn rest_half(spec: &Spec, stmts: &Statements, truth: Option<&Truth>, bundle: &Bundle) -> Rest {
    let (ctx, source) = context(spec, stmts, truth, bundle);
    let mut parts = Parts::check(&ctx, source, false);
    parts.svg_coverage = checks::svg::check(&ctx, &mut parts.svg);
    Rest(parts)
}

/// The report of `bundle` from its two halves (computed for it or for a bundle whose inputs to
/// each half are the same).
pub fn join_halves(
    spec: &Spec,
    stmts: &Statements,
    bundle: &Bundle,
    rest: Rest,
    script: Vec<Finding>,
) -> Report {
    rest.0.finish(spec, stmts, bundle, script)
}

/// Everything [`rest_half`] reads from the bundle, as text: every artifact but the script by name
/// and sha256, the bundle's entry names, and the findings of loading it (which may be about the
/// script: missing, a link, too large). Two bundles with the same text give the same half under
/// one spec, statements and truth.
pub fn rest_key(spec: &Spec, bundle: &Bundle) -> String {
    use std::fmt::Write;
    let mut key = String::with_capacity(1024);
    for a in bundle.artifacts.values() {
        if a.name != spec.artifacts.script {
            let _ = writeln!(key, "artifact {} {}", a.name, a.sha256);
        }
    }
    for n in &bundle.names {
        let _ = writeln!(key, "entry {n:?}");
    }
    for f in &bundle.findings {
        let _ = writeln!(key, "finding {f:?}");
    }
    key
}

/// Verify a loaded bundle against a source that `load_source` is still to read: `vouch verify`'s
/// order. The script family (which needs neither the source nor the truth) starts on rayon's pool
/// at once, so the worker's start-up and the parse overlap reading the source and recomputing;
/// everything else, the chart included, runs on this thread. The report is the same as
/// [`verify`]'s. An error from `load_source` is returned as is (the script's findings are dropped).
pub fn verify_loading<E>(
    spec: &Spec,
    bundle: &Bundle,
    load_source: impl FnOnce() -> Result<Statements, E>,
) -> Result<(Statements, Report), E> {
    let mut script = Vec::new();
    let mut checked = None;
    rayon::in_place_scope(|s| {
        let out = &mut script;
        s.spawn(move |_| checks::script::check_bundle(spec, bundle, out));
        checked = Some(load_source().map(|stmts| {
            let truth = stmts
                .valid_years()
                .map(|years| Truth::compute(spec, &stmts, &years));
            let (ctx, source) = context(spec, &stmts, truth.as_ref(), bundle);
            let parts = Parts::check(&ctx, source, true);
            (stmts, parts)
        }));
    });
    let (stmts, parts) = checked.expect("the scope ran")?;
    let report = parts.finish(spec, &stmts, bundle, script);
    Ok((stmts, report))
}

/// The families' shared view, and the source family's findings: the truth is withheld when the
/// source itself is faulty.
fn context<'a>(
    spec: &'a Spec,
    stmts: &'a Statements,
    truth: Option<&'a Truth>,
    bundle: &'a Bundle,
) -> (Context<'a>, Vec<Finding>) {
    let mut source = Vec::new();
    checks::source::check(stmts, &mut source);
    let source_faulty = source.iter().any(|f| f.status == Status::Fail);
    let ctx = Context {
        spec,
        stmts,
        truth: if source_faulty { None } else { truth },
        bundle,
        source_alias: None,
    };
    (ctx, source)
}

/// The findings of every family but the script's, in report order around it.
#[derive(Clone, Debug)]
struct Parts {
    /// Bundle, source and manifest findings.
    head: Vec<Finding>,
    svg: Vec<Finding>,
    /// Metrics, movements, memo and consistency findings.
    later: Vec<Finding>,
    checked: Vec<Family>,
    coverage: Vec<(String, Coverage)>,
    /// The chart's plotted values (counted when it was checked and a panel was read).
    svg_coverage: Coverage,
}

impl Parts {
    /// Runs every family but the script's (and the chart's too when `with_svg`).
    fn check(ctx: &Context, source: Vec<Finding>, with_svg: bool) -> Parts {
        let mut head = ctx.bundle.findings.clone();
        head.extend(source);
        let mut checked = vec![
            Family::Bundle,
            Family::Source,
            Family::Svg,
            Family::Script,
            Family::Manifest,
        ];
        let manifest = checks::manifest::check(ctx, &mut head);
        let ctx = &Context {
            source_alias: manifest.input_filename.as_deref(),
            ..*ctx
        };
        let mut svg = Vec::new();
        let mut svg_coverage = Coverage::default();
        if with_svg {
            svg_coverage = checks::svg::check(ctx, &mut svg);
        }
        let mut later = Vec::new();
        let mut coverage = Vec::new();
        if ctx.truth.is_some() {
            let metrics = checks::metrics::check(ctx, &mut later);
            let movements = checks::movements::check(ctx, &metrics, &mut later);
            let memo = checks::memo::check(ctx, &metrics, &mut later);
            coverage.push((ctx.spec.artifacts.memo.clone(), memo.coverage));
            checks::consistency::check(ctx, &metrics, &movements, &memo, &manifest, &mut later);
            checked.extend([
                Family::Metrics,
                Family::Movements,
                Family::Memo,
                Family::Consistency,
            ]);
        }
        Parts {
            head,
            svg,
            later,
            checked,
            coverage,
            svg_coverage,
        }
    }

    fn finish(
        self,
        spec: &Spec,
        stmts: &Statements,
        bundle: &Bundle,
        script: Vec<Finding>,
    ) -> Report {
        let Parts {
            mut head,
            svg,
            later,
            mut checked,
            mut coverage,
            svg_coverage,
        } = self;
        if svg_coverage.total() > 0 && checked.contains(&Family::Metrics) {
            coverage.push((spec.artifacts.chart.clone(), svg_coverage));
        }
        head.extend(svg);
        head.extend(script);
        head.extend(later);
        let mut findings = crate::report::cap_findings(head);
        crate::report::make_inert(&mut findings);
        checked.sort();
        let skipped = skips(spec, bundle, &findings);
        Report {
            skipped,
            reexecuted: false,
            bundle: bundle.origin.clone(),
            source: stmts.path.clone(),
            source_sha256: stmts.sha256.clone(),
            spec: format!("{} v{}", spec.contract.id, spec.contract.version),
            artifacts: bundle.digests(),
            families_checked: checked,
            findings,
            coverage,
        }
    }
}

/// The chart's checks that run before its size is read: a failing `svg.root` or `svg.size`
/// stops the rest, not these.
const SVG_READ_BEFORE_SIZE: &[CheckId] = &[
    CheckId::SvgDoctype,
    CheckId::SvgScript,
    CheckId::SvgForeignObject,
    CheckId::SvgEventAttribute,
    CheckId::SvgExternalHref,
    CheckId::SvgExternalStyle,
];

/// Checks that stop their family when they fail, with the checks of the family that ran before
/// them all the same (the failing check itself has its finding).
const GATES: &[(CheckId, &[CheckId])] = &[
    (CheckId::SvgUnreadable, &[]),
    (CheckId::SvgMalformed, &[]),
    (CheckId::SvgDoctypeEntity, &[]),
    (CheckId::SvgTooComplex, &[]),
    (CheckId::SvgRoot, SVG_READ_BEFORE_SIZE),
    (CheckId::SvgSize, SVG_READ_BEFORE_SIZE),
    (CheckId::MetricsUnreadable, &[]),
    (CheckId::MetricsLayout, &[]),
    (CheckId::MovementsUnreadable, &[]),
    (CheckId::MovementsParse, &[]),
    (CheckId::MemoUnreadable, &[]),
    (CheckId::MemoTooComplex, &[]),
    (CheckId::ScriptUnreadable, &[]),
    (CheckId::ScriptSyntax, &[]),
    (CheckId::ManifestUnreadable, &[]),
    (CheckId::ManifestParse, &[]),
];

/// What did not run, read from the bundle and the findings: a family whose artifact is missing,
/// or whose reading stopped at a gate; consistency checks whose inputs were not read.
fn skips(spec: &Spec, bundle: &Bundle, findings: &[Finding]) -> Vec<crate::report::Skip> {
    use crate::report::Skip;
    let a = &spec.artifacts;
    let families = [
        (Family::Svg, a.chart.as_str()),
        (Family::Metrics, a.metrics.as_str()),
        (Family::Movements, a.movements.as_str()),
        (Family::Memo, a.memo.as_str()),
        (Family::Script, a.script.as_str()),
        (Family::Manifest, a.manifest.as_str()),
    ];
    let mut out: Vec<Skip> = Vec::new();
    for (family, name) in families {
        let skip = if bundle.get(name).is_none() {
            Some((format!("`{name}` is missing"), Vec::new()))
        } else {
            GATES
                .iter()
                .find(|(gate, _)| {
                    findings.iter().any(|f| {
                        f.id == *gate && f.status == Status::Fail && f.family() == family.as_str()
                    })
                })
                .map(|(gate, except)| (format!("not reached: `{gate}` failed"), except.to_vec()))
        };
        if let Some((reason, mut except)) = skip {
            // The re-execution checks run on the source, whatever stopped the reading.
            except.extend(crate::report::REEXECUTE_CHECKS);
            out.push(Skip {
                family,
                checks: Vec::new(),
                except,
                reason,
            });
        }
    }
    // Consistency compares artifacts: a check is skipped when one it compares was not read.
    let unread = |f: Family| out.iter().any(|s| s.family == f && s.checks.is_empty());
    let needs: [(CheckId, &[Family]); 3] = [
        (
            CheckId::ConsistencyKpiVsMetrics,
            &[Family::Memo, Family::Metrics],
        ),
        (
            CheckId::ConsistencyMovementsVsMetrics,
            &[Family::Movements, Family::Metrics],
        ),
        (
            CheckId::ConsistencyYearRange,
            &[Family::Manifest, Family::Metrics],
        ),
    ];
    let mut consistency = Vec::new();
    for (id, inputs) in needs {
        if let Some(f) = inputs.iter().find(|f| unread(**f)) {
            consistency.push(Skip {
                family: Family::Consistency,
                checks: vec![id],
                except: Vec::new(),
                reason: format!("needs the {} family, which did not run", f.as_str()),
            });
        }
    }
    out.extend(consistency);
    out
}

/// What the chart's checks read and concluded (panels, marks, where the recomputed values would
/// sit), for a report to draw: the same reading [`verify`] judged, under the same truth (none when
/// the source is faulty). `None` when the chart is absent or unreadable.
pub fn chart_view(
    spec: &Spec,
    stmts: &Statements,
    bundle: &Bundle,
) -> Option<checks::svg::view::ChartView> {
    let truth = stmts
        .valid_years()
        .map(|years| Truth::compute(spec, stmts, &years));
    let (ctx, _) = context(spec, stmts, truth.as_ref(), bundle);
    checks::svg::view(&ctx)
}
