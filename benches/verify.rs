//! Criterion benches: whole verification of the shipped Northstar bundle in-process, and its parts
//! (loading, recompute, each check family, rendering), so that what dominates is visible.
//! Run with `cargo bench --bench verify`; figures are recorded in docs/performance.md.

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use std::path::PathBuf;
use vouch::bundle::Bundle;
use vouch::checks::{self, Context};
use vouch::numbers::{judge, parse_number, show, Num};
use vouch::recompute::Truth;
use vouch::report::json;
use vouch::source::Statements;
use vouch::Spec;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn bench(c: &mut Criterion) {
    // As `vouch verify` does: rayon's pool with its stack size, started before the first run.
    vouch::verify::init_pool(Some(vouch::verify::SINGLE_BUNDLE_THREADS));
    let spec = Spec::default_spec();
    let source = root().join("fixtures/northstar/northstar_cloud_financial_statements.csv");
    let bundle_dir = root().join("fixtures/northstar/bundle");
    let source_bytes = std::fs::read(&source).unwrap();
    let bundle = Bundle::load_dir(&bundle_dir, &spec).unwrap();
    let stmts = Statements::read_bytes(
        "s",
        "northstar_cloud_financial_statements.csv",
        &source_bytes,
        &spec,
    )
    .unwrap();
    let years = stmts.valid_years().unwrap();
    let truth = Truth::compute(&spec, &stmts, &years);
    let ctx = Context {
        spec: &spec,
        stmts: &stmts,
        truth: Some(&truth),
        bundle: &bundle,
        source_alias: None,
    };
    let script = bundle.get(&spec.artifacts.script).unwrap().text().unwrap();

    // Whole verification.
    c.bench_function("verify_northstar", |b| {
        b.iter(|| {
            let stmts = Statements::read_path(&source, &spec).unwrap();
            let bundle = Bundle::load_dir(&bundle_dir, &spec).unwrap();
            black_box(vouch::verify::verify(&spec, &stmts, &bundle))
        })
    });
    c.bench_function("verify_northstar_in_memory", |b| {
        b.iter(|| black_box(vouch::verify::verify(&spec, &stmts, &bundle)))
    });
    let report = vouch::verify::verify(&spec, &stmts, &bundle);
    assert_eq!(report.verdict(), vouch::Verdict::Accept);

    // Process start-up and loading.
    c.bench_function("spec_compile", |b| {
        b.iter(|| black_box(Spec::default_spec()))
    });
    c.bench_function("load_source", |b| {
        b.iter(|| black_box(Statements::read_path(&source, &spec).unwrap()))
    });
    c.bench_function("load_bundle", |b| {
        b.iter(|| black_box(Bundle::load_dir(&bundle_dir, &spec).unwrap()))
    });
    c.bench_function("recompute_northstar", |b| {
        b.iter(|| black_box(Truth::compute(&spec, &stmts, &years)))
    });

    // Each family on the loaded bundle, in verification order.
    c.bench_function("family_source", |b| {
        b.iter(|| {
            let mut out = Vec::new();
            checks::source::check(&stmts, &mut out);
            black_box(out)
        })
    });
    c.bench_function("family_manifest", |b| {
        b.iter(|| {
            let mut out = Vec::new();
            black_box(checks::manifest::check(&ctx, &mut out));
            black_box(out)
        })
    });
    c.bench_function("family_svg", |b| {
        b.iter(|| {
            let mut out = Vec::new();
            checks::svg::check(&ctx, &mut out);
            black_box(out)
        })
    });
    c.bench_function("family_script", |b| {
        b.iter(|| {
            let mut out = Vec::new();
            checks::script::check(&ctx, &mut out);
            black_box(out)
        })
    });
    // The audit's script half: the Northstar script with one helper of its own, its other
    // top-level chunks parsed by earlier runs (vouch::read::python::ParseCache).
    let cache = vouch::read::python::ParseCache::default();
    let guard = script.rfind("if __name__").unwrap();
    let edited = format!(
        "{}def _own(values):\n    return sum(values)\n\n\n{}",
        &script[..guard],
        &script[guard..]
    );
    black_box(vouch::read::python::read_shared(script, "3.12", &cache));
    c.bench_function("script_read_shared_warm", |b| {
        b.iter(|| black_box(vouch::read::python::read_shared(&edited, "3.12", &cache)))
    });
    c.bench_function("script_read_whole", |b| {
        b.iter(|| black_box(vouch::read::python::read(&edited, "3.12")))
    });
    c.bench_function("script_parse_only", |b| {
        b.iter(|| {
            black_box(ruff_python_parser::parse_unchecked(
                script,
                ruff_python_parser::ParseOptions::from(ruff_python_parser::Mode::Module),
            ))
        })
    });
    c.bench_function("family_metrics", |b| {
        b.iter(|| {
            let mut out = Vec::new();
            black_box(checks::metrics::check(&ctx, &mut out));
            black_box(out)
        })
    });
    let mut sink = Vec::new();
    let manifest = checks::manifest::check(&ctx, &mut sink);
    let metrics = checks::metrics::check(&ctx, &mut sink);
    c.bench_function("family_movements", |b| {
        b.iter(|| {
            let mut out = Vec::new();
            black_box(checks::movements::check(&ctx, &metrics, &mut out));
            black_box(out)
        })
    });
    let movements = checks::movements::check(&ctx, &metrics, &mut sink);
    c.bench_function("family_memo", |b| {
        b.iter(|| {
            let mut out = Vec::new();
            black_box(checks::memo::check(&ctx, &metrics, &mut out));
            black_box(out)
        })
    });
    let memo = checks::memo::check(&ctx, &metrics, &mut sink);
    c.bench_function("family_consistency", |b| {
        b.iter(|| {
            let mut out = Vec::new();
            checks::consistency::check(&ctx, &metrics, &movements, &memo, &manifest, &mut out);
            black_box(out)
        })
    });
    c.bench_function("render_json", |b| {
        b.iter(|| black_box(json::render(&report)))
    });

    // The number kernel.
    let x = Num::new(4_521_493.into(), 10_000_000.into());
    let printed = parse_number("45.21%").unwrap();
    let hundred = vouch::numbers::int(100);
    c.bench_function("judge_percent", |b| {
        b.iter(|| black_box(judge(black_box(&x), &printed, &hundred)))
    });
    c.bench_function("show_4_places", |b| b.iter(|| black_box(show(&x, 4))));
    c.bench_function("parse_number", |b| {
        b.iter(|| black_box(parse_number(black_box("(1,234.56)"))))
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);

// As in the `vouch` binary (src/main.rs).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
