//! Criterion benches for `vouch compare`: 2 × 10,000 runs × 90 checks compared in memory
//! (independent and paired designs), and reading a results file back (JSON lines and CSV).
//! Run with `cargo bench --bench compare`; figures are recorded in docs/compare.md.

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use std::io::Write as _;
use vouch::audit::results::CheckOutcome;
use vouch::audit::{RunResult, RunVerdict};

const RUNS: usize = 10_000;
const CHECKS: usize = 90;

/// splitmix64, so the data are the same on every run of the bench.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// `runs` runs over 90 checks, each check failing with a rate between 0 and 4.5 % (a few never
/// fail), 1 % of runs erroring; trials 0.. of one input when `paired`.
fn side(seed: u64, runs: usize, paired: bool) -> Vec<RunResult> {
    let mut rng = Rng(seed);
    let names: Vec<String> = (0..CHECKS)
        .map(|i| format!("family{}.check_{i:02}", i / 10))
        .collect();
    (0..runs)
        .map(|i| {
            if rng.next() < 0.01 {
                return RunResult {
                    run_id: format!("run_{seed}_{i}"),
                    path: format!("runs/{seed}/{i}"),
                    label: Some(format!("v{seed}")),
                    trial: Some(i as u32),
                    model: Some("m".into()),
                    source_file: Some("s.csv".into()),
                    source_sha256: Some("ab".repeat(32)),
                    verdict: RunVerdict::Error,
                    error: Some("boom".into()),
                    checks: Vec::new(),
                    first_pass: Some(RunVerdict::Error),
                    repair_rounds: Some(0),
                };
            }
            let checks: Vec<CheckOutcome> = names
                .iter()
                .enumerate()
                .map(|(j, name)| {
                    let fail = rng.next() < (j % 10) as f64 * 0.005;
                    CheckOutcome {
                        check: name.clone(),
                        status: if fail { "fail" } else { "pass" }.into(),
                        findings: u32::from(fail),
                        message: fail.then(|| "failed".to_string()),
                    }
                })
                .collect();
            let rejected = checks.iter().any(|c| c.status == "fail");
            let verdict = if rejected {
                RunVerdict::Reject
            } else {
                RunVerdict::Accept
            };
            RunResult {
                run_id: format!("run_{seed}_{i}"),
                path: format!("runs/{seed}/{i}"),
                label: Some(format!("v{seed}")),
                trial: paired.then_some(i as u32),
                model: Some("m".into()),
                source_file: Some("s.csv".into()),
                source_sha256: Some("ab".repeat(32)),
                verdict,
                error: None,
                checks,
                first_pass: Some(verdict),
                repair_rounds: Some(0),
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("compare");
    group.sample_size(10);

    let baseline = side(1, RUNS, false);
    let candidate = side(2, RUNS, false);
    group.bench_function("independent_2x10000_runs_90_checks", |b| {
        b.iter(|| black_box(vouch::compare::compare(&baseline, &candidate, 0.05)))
    });
    let baseline = side(1, RUNS, true);
    let candidate = side(2, RUNS, true);
    group.bench_function("paired_2x10000_runs_90_checks", |b| {
        b.iter(|| black_box(vouch::compare::compare(&baseline, &candidate, 0.05)))
    });
    let comparison = vouch::compare::compare(&baseline, &candidate, 0.05);
    let names = vouch::compare::render::Names {
        baseline: "a",
        candidate: "b",
    };
    group.bench_function("render_all_formats", |b| {
        b.iter(|| {
            black_box(vouch::compare::render::human(&comparison, names));
            black_box(vouch::compare::render::json(&comparison, names));
            black_box(vouch::compare::render::markdown(&comparison, names));
        })
    });

    let ln_fact = vouch::compare::stats::LnFactorial::new(20_000);
    let table = vouch::compare::stats::Table2x2 {
        a: 450,
        b: 9_550,
        c: 520,
        d: 9_480,
    };
    group.bench_function("fisher_exact_n20000", |b| {
        b.iter(|| {
            black_box(vouch::compare::stats::fisher_exact(
                black_box(table),
                &ln_fact,
            ))
        })
    });
    group.bench_function("ln_factorial_table_20000", |b| {
        b.iter(|| black_box(vouch::compare::stats::LnFactorial::new(black_box(20_000))))
    });

    // Reading: 1,000 runs × 90 checks = 90,000 rows per iteration, in memory.
    let runs = side(3, 1_000, true);
    let rows: Vec<_> = runs.iter().flat_map(|r| r.rows()).collect();
    let mut jsonl = Vec::new();
    for row in &rows {
        serde_json::to_writer(&mut jsonl, row).unwrap();
        jsonl.write_all(b"\n").unwrap();
    }
    let mut csv_bytes = csv::Writer::from_writer(Vec::new());
    for row in &rows {
        csv_bytes.serialize(row).unwrap();
    }
    let csv_bytes = csv_bytes.into_inner().unwrap();
    group.bench_function("read_jsonl_90000_rows", |b| {
        b.iter(|| black_box(vouch::compare::read::read_jsonl("b", &jsonl[..]).unwrap()))
    });
    group.bench_function("read_csv_90000_rows", |b| {
        b.iter(|| black_box(vouch::compare::read::read_csv("b", &csv_bytes[..]).unwrap()))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

// As in the `vouch` binary (src/main.rs).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
