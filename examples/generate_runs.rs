//! Generate N seeded runs from the Northstar fixture (see `vouch::testdata`).
//!
//! cargo run --release --example generate_runs -- OUT_DIR N [SEED] [LABEL] [DEFECT_RATE_PERCENT] [all]
//!
//! Every run's script is its own (a header and helper functions); with `all`, every top-level
//! function's text is the run's own too.

use std::path::PathBuf;
use vouch::testdata::{generate, Plan};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: generate_runs OUT_DIR N [SEED] [LABEL] [DEFECT_RATE_PERCENT] [all]");
        std::process::exit(2);
    }
    let parse = |i: usize, default: u64| {
        args.get(i)
            .map_or(Ok(default), |s| s.parse::<u64>())
            .unwrap_or_else(|_| {
                eprintln!("argument {i} must be a number");
                std::process::exit(2)
            })
    };
    let out = PathBuf::from(&args[1]);
    let mut plan = Plan::uniform(
        parse(2, 0) as usize,
        parse(3, 1),
        args.get(4).map_or("baseline", String::as_str),
        parse(5, 30) as u32,
    );
    plan.distinct_functions = args.get(6).is_some_and(|a| a == "all");
    let northstar = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/northstar");
    match generate(&northstar, &out, &plan) {
        Ok(dirs) => eprintln!("wrote {} runs to {}", dirs.len(), out.display()),
        Err(e) => {
            eprintln!("generate_runs: {e}");
            std::process::exit(1);
        }
    }
}
