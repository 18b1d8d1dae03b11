//! Criterion benches: whole verification of the shipped Northstar bundle in-process, and its parts.
//! Run with `cargo bench --bench verify`; figures are recorded in docs/performance.md.

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use std::path::PathBuf;
use vouch::bundle::Bundle;
use vouch::recompute::Truth;
use vouch::source::Statements;
use vouch::Spec;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn bench(c: &mut Criterion) {
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
    c.bench_function("recompute_northstar", |b| {
        b.iter(|| black_box(Truth::compute(&spec, &stmts, &years)))
    });
    c.bench_function("spec_compile", |b| {
        b.iter(|| black_box(Spec::default_spec()))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
