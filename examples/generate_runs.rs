//! Generate N runs (docs/runs.md layout) from the Northstar fixture with a seeded mix of defects,
//! for audit and compare tests and benchmarks. Unchanged files are hard links to one template,
//! so 10,000 runs take seconds and little disk.
//!
//! cargo run --release --example generate_runs -- OUT_DIR N [SEED] [LABEL] [DEFECT_RATE_PERCENT]

use std::path::{Path, PathBuf};

const ARTIFACTS: [&str; 6] = [
    "analyze_financials.py",
    "calculated_metrics.csv",
    "unusual_movements.csv",
    "financial_trends.svg",
    "investment_analysis.md",
    "analysis_run.json",
];
const SOURCE: &str = "northstar_cloud_financial_statements.csv";

/// xorshift64*: deterministic, dependency-free.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One defect: which artifact it edits and how.
fn defect(kind: u64, name: &str, text: &str, rng: &mut Rng) -> Option<String> {
    match (kind, name) {
        // A metric value nudged in its last digits.
        (0, "calculated_metrics.csv") => {
            let lines: Vec<&str> = text.lines().collect();
            let row = 1 + rng.below(lines.len() as u64 - 1) as usize;
            let mut cells: Vec<String> = lines[row].split(',').map(str::to_string).collect();
            let col = 2 + rng.below(cells.len() as u64 - 2) as usize;
            if cells[col].is_empty() {
                cells[col] = "0.1234".into();
            } else {
                cells[col] = format!("{}7", cells[col].trim_end_matches('0'));
            }
            let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            out[row] = cells.join(",");
            Some(out.join("\n") + "\n")
        }
        // A flag dropped.
        (1, "unusual_movements.csv") => {
            let lines: Vec<&str> = text.lines().collect();
            let drop = 1 + rng.below(lines.len() as u64 - 1) as usize;
            Some(
                lines
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| *i != drop)
                    .map(|(_, l)| *l)
                    .collect::<Vec<_>>()
                    .join("\n")
                    + "\n",
            )
        }
        // The manifest claims a wrong row count.
        (2, "analysis_run.json") => Some(text.replace("\"row_count\": 5", "\"row_count\": 6")),
        // A network import in the script.
        (3, "analyze_financials.py") => Some(format!("import socket\n{text}")),
        // A memo number contradicted.
        (4, "investment_analysis.md") => Some(text.replacen("%", "1%", 1)),
        _ => None,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: generate_runs OUT_DIR N [SEED] [LABEL] [DEFECT_RATE_PERCENT]");
        std::process::exit(2);
    }
    let out = PathBuf::from(&args[1]);
    let n: usize = args[2].parse().expect("N");
    let seed: u64 = args.get(3).map_or(1, |s| s.parse().expect("SEED"));
    let label = args.get(4).cloned().unwrap_or_else(|| "baseline".into());
    let rate: u64 = args.get(5).map_or(30, |s| s.parse().expect("rate"));
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/northstar");
    let template = out.join(".template");
    std::fs::create_dir_all(template.join("bundle")).unwrap();
    std::fs::create_dir_all(template.join("source")).unwrap();
    for a in ARTIFACTS {
        std::fs::copy(root.join("bundle").join(a), template.join("bundle").join(a)).unwrap();
    }
    std::fs::copy(root.join(SOURCE), template.join("source").join(SOURCE)).unwrap();
    let source_sha = sha256_file(&template.join("source").join(SOURCE));
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let inputs: usize = 10;
    for i in 0..n {
        let run_id = format!("run_{label}_{i:06}");
        let dir = out.join(&run_id);
        std::fs::create_dir_all(dir.join("bundle")).unwrap();
        std::fs::create_dir_all(dir.join("source")).unwrap();
        let defective = rng.below(100) < rate;
        let kind = rng.below(5);
        for a in ARTIFACTS {
            let src = template.join("bundle").join(a);
            let dst = dir.join("bundle").join(a);
            let _ = std::fs::remove_file(&dst);
            let edited = if defective {
                let text = std::fs::read_to_string(&src).unwrap();
                defect(kind, a, &text, &mut rng)
            } else {
                None
            };
            match edited {
                Some(t) => std::fs::write(&dst, t).unwrap(),
                None => std::fs::hard_link(&src, &dst)
                    .or_else(|_| std::fs::copy(&src, &dst).map(|_| ()))
                    .unwrap(),
            }
        }
        let sdst = dir.join("source").join(SOURCE);
        let _ = std::fs::remove_file(&sdst);
        std::fs::hard_link(template.join("source").join(SOURCE), &sdst).unwrap();
        let run = serde_json::json!({
            "schema": "vouch.run",
            "schema_version": 1,
            "run_id": run_id,
            "label": label,
            "trial": i / inputs,
            "model": "generated",
            "prompt_sha256": format!("{:064x}", seed),
            "source": { "file_name": SOURCE, "sha256": source_sha },
            "started_at": "2026-11-30T00:00:00Z",
            "finished_at": "2026-11-30T00:01:00Z",
            "status": "completed",
            "usage": { "input_tokens": 1000, "output_tokens": 500, "total_tokens": 1500 },
        });
        std::fs::write(
            dir.join("run.json"),
            serde_json::to_vec_pretty(&run).unwrap(),
        )
        .unwrap();
    }
    // The template must not be audited as a run.
    std::fs::remove_dir_all(&template).ok();
    eprintln!("wrote {n} runs to {}", out.display());
}

fn sha256_file(p: &Path) -> String {
    vouch::bundle::sha256_hex(&std::fs::read(p).unwrap())
}
