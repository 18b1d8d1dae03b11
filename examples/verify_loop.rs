//! Verifies the Northstar bundle in a loop (profiling aid): `cargo run --release --example
//! verify_loop -- N`.
use std::path::PathBuf;
use vouch::bundle::Bundle;
use vouch::source::Statements;
use vouch::Spec;

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1000);
    vouch::verify::init_pool(Some(vouch::verify::SINGLE_BUNDLE_THREADS));
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let spec = Spec::default_spec();
    let stmts = Statements::read_path(
        &root.join("fixtures/northstar/northstar_cloud_financial_statements.csv"),
        &spec,
    )
    .expect("source");
    let bundle = Bundle::load_dir(&root.join("fixtures/northstar/bundle"), &spec).expect("bundle");
    let t = std::time::Instant::now();
    for _ in 0..n {
        std::hint::black_box(vouch::verify::verify(&spec, &stmts, &bundle));
    }
    eprintln!(
        "{:.3} ms per verification",
        t.elapsed().as_secs_f64() * 1e3 / n as f64
    );
}

// As in the `vouch` binary (src/main.rs).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
