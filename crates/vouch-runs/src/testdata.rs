//! Seeded synthetic runs (docs/runs.md layout) made from the Northstar fixture, for tests,
//! benchmarks and trying `vouch audit`/`compare` without an API key. Each run is the good bundle
//! or the good bundle with one defect. With [`Plan::distinct_scripts`] (the default of
//! [`Plan::uniform`]) every run's script differs from every other's, as real agents' scripts do:
//! a header naming the run and a seeded number of helper functions of its own, so no verdict
//! cache or shared parse can stand in for verifying each run. `cargo run --example
//! generate_runs` wraps this.

use std::path::{Path, PathBuf};

const SOURCE: &str = "northstar_cloud_financial_statements.csv";

/// The defects the generator can plant, each in one artifact.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Defect {
    /// A metric value nudged in its last digits (`calculated_metrics.csv`).
    MetricValue,
    /// One flag row dropped (`unusual_movements.csv`).
    MissingFlag,
    /// `row_count` off by one (`analysis_run.json`).
    ManifestRowCount,
    /// `import socket` added (`analyze_financials.py`).
    NetworkImport,
    /// The first percentage in the memo changed (`investment_analysis.md`).
    MemoNumber,
}

impl Defect {
    pub const ALL: [Defect; 5] = [
        Defect::MetricValue,
        Defect::MissingFlag,
        Defect::ManifestRowCount,
        Defect::NetworkImport,
        Defect::MemoNumber,
    ];
}

/// What to generate.
#[derive(Clone, Debug)]
pub struct Plan {
    pub runs: usize,
    pub seed: u64,
    pub label: String,
    /// Percent of runs (0–100) given each defect; a run gets at most one.
    pub rates: Vec<(Defect, u32)>,
    /// Distinct inputs the trials cycle over (trial index = run / inputs).
    pub inputs: usize,
    /// Give every run a script of its own (a header and seeded helper functions); otherwise
    /// the runs without a script defect share the fixture's script byte for byte.
    pub distinct_scripts: bool,
    /// With `distinct_scripts`, also give every top-level function and class of the script a
    /// comment of the run's own just before it, so no top-level chunk of one run's script is
    /// any other's (the worst case for the audit's shared parses).
    pub distinct_functions: bool,
}

impl Plan {
    /// `rate` percent of runs defective, spread evenly over every defect.
    pub fn uniform(runs: usize, seed: u64, label: &str, rate: u32) -> Plan {
        let each = rate / Defect::ALL.len() as u32;
        Plan {
            runs,
            seed,
            label: label.to_string(),
            rates: Defect::ALL.iter().map(|d| (*d, each)).collect(),
            inputs: 10,
            distinct_scripts: true,
            distinct_functions: false,
        }
    }
}

/// xorshift64*: deterministic and dependency-free.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

fn plant(defect: Defect, text: &str, rng: &mut Rng) -> String {
    match defect {
        Defect::MetricValue => {
            let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
            let row = 1 + rng.below(lines.len() as u64 - 1) as usize;
            let mut cells: Vec<String> = lines[row].split(',').map(str::to_string).collect();
            let col = 2 + rng.below(cells.len() as u64 - 2) as usize;
            cells[col] = if cells[col].is_empty() {
                "0.1234".into()
            } else {
                format!("{}7", cells[col].trim_end_matches('0'))
            };
            lines[row] = cells.join(",");
            lines.join("\n") + "\n"
        }
        Defect::MissingFlag => {
            let lines: Vec<&str> = text.lines().collect();
            let drop = 1 + rng.below(lines.len() as u64 - 1) as usize;
            lines
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != drop)
                .map(|(_, l)| *l)
                .collect::<Vec<_>>()
                .join("\n")
                + "\n"
        }
        Defect::ManifestRowCount => text.replace("\"row_count\": 5", "\"row_count\": 6"),
        Defect::NetworkImport => format!("import socket\n{text}"),
        Defect::MemoNumber => text.replacen('%', "1%", 1),
    }
}

/// The fixture's script made the run's own: a header comment naming the run, and 0 to 11
/// helper functions with seeded names and constants before the `__main__` guard. None of them
/// is called, so the artifacts the script writes (and every verdict) are unchanged.
fn distinct_script(text: &str, run_id: &str, every_function: bool, rng: &mut Rng) -> String {
    const WORDS: [&str; 8] = [
        "revenue",
        "margin",
        "liquidity",
        "leverage",
        "cash",
        "growth",
        "coverage",
        "working",
    ];
    let mut helpers = String::new();
    for k in 0..rng.below(12) {
        let word = WORDS[rng.below(WORDS.len() as u64) as usize];
        let (scale, every, divisor) = (1 + rng.below(97), 2 + rng.below(5), 3 + rng.below(89));
        helpers.push_str(&format!(
            "def _{word}_helper_{k}_{tag:x}(values, scale={scale}):\n    \
             \"\"\"Weighted total of {word} values, every {every}th added, the rest \
             divided by {divisor}.\"\"\"\n    total = 0\n    \
             for index, value in enumerate(values):\n        if index % {every} == 0:\n            \
             total += value * scale\n        else:\n            total -= value / {divisor}\n    \
             return {{\"name\": \"{word}\", \"total\": total, \"count\": len(values)}}\n\n\n",
            tag = rng.next() & 0xffff_ffff,
        ));
    }
    let guard = "if __name__ == \"__main__\":";
    let body = match text.rfind(guard) {
        Some(at) => format!("{}{helpers}{}", &text[..at], &text[at..]),
        None => format!("{text}\n\n{helpers}"),
    };
    let body = if every_function {
        let mut out = String::with_capacity(body.len() + 4096);
        for (k, line) in body.split_inclusive('\n').enumerate() {
            if line.starts_with("def ") || line.starts_with("class ") {
                out.push_str(&format!("# {run_id}, line {k}\n"));
            }
            out.push_str(line);
        }
        out
    } else {
        body
    };
    format!("# Generated run {run_id}.\n{body}")
}

fn artifact_of(defect: Defect) -> &'static str {
    match defect {
        Defect::MetricValue => "calculated_metrics.csv",
        Defect::MissingFlag => "unusual_movements.csv",
        Defect::ManifestRowCount => "analysis_run.json",
        Defect::NetworkImport => "analyze_financials.py",
        Defect::MemoNumber => "investment_analysis.md",
    }
}

/// Write `plan.runs` run directories under `out` from the fixture at `northstar` (the directory
/// holding the source CSV and `bundle/`). Returns the run directories.
pub fn generate(northstar: &Path, out: &Path, plan: &Plan) -> std::io::Result<Vec<PathBuf>> {
    let spec = vouch_core::Spec::default_spec();
    let template = out.join(format!(".template-{}", plan.label));
    std::fs::create_dir_all(template.join("bundle"))?;
    std::fs::create_dir_all(template.join("source"))?;
    for a in spec.artifacts.all() {
        std::fs::copy(
            northstar.join("bundle").join(a),
            template.join("bundle").join(a),
        )?;
    }
    std::fs::copy(northstar.join(SOURCE), template.join("source").join(SOURCE))?;
    let source_sha =
        vouch_core::bundle::sha256_hex(&std::fs::read(template.join("source").join(SOURCE))?);
    let mut rng = Rng(plan.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut dirs = Vec::with_capacity(plan.runs);
    for i in 0..plan.runs {
        let run_id = format!("run_{}_{i:06}", plan.label);
        let dir = out.join(&run_id);
        std::fs::create_dir_all(dir.join("bundle"))?;
        std::fs::create_dir_all(dir.join("source"))?;
        // One draw decides the run's defect (if any) by cumulative rates.
        let roll = rng.below(100) as u32;
        let mut acc = 0;
        let defect = plan.rates.iter().find(|(_, r)| {
            acc += r;
            roll < acc
        });
        for a in spec.artifacts.all() {
            let src = template.join("bundle").join(a);
            let dst = dir.join("bundle").join(a);
            let _ = std::fs::remove_file(&dst);
            let own_script = plan.distinct_scripts && a == spec.artifacts.script;
            let planted = defect.filter(|(d, _)| artifact_of(*d) == a);
            if own_script || planted.is_some() {
                let mut text = std::fs::read_to_string(&src)?;
                if own_script {
                    text = distinct_script(&text, &run_id, plan.distinct_functions, &mut rng);
                }
                if let Some((d, _)) = planted {
                    text = plant(*d, &text, &mut rng);
                }
                std::fs::write(&dst, text)?;
            } else {
                link_or_copy(&src, &dst)?;
            }
        }
        let sdst = dir.join("source").join(SOURCE);
        let _ = std::fs::remove_file(&sdst);
        link_or_copy(&template.join("source").join(SOURCE), &sdst)?;
        let run = serde_json::json!({
            "schema": "vouch.run",
            "schema_version": 1,
            "run_id": run_id,
            "label": plan.label,
            "trial": i / plan.inputs.max(1),
            "model": "generated",
            "prompt_sha256": format!("{:064x}", plan.seed),
            "source": { "file_name": SOURCE, "sha256": source_sha },
            "started_at": "2026-11-30T00:00:00Z",
            "finished_at": "2026-11-30T00:01:00Z",
            "status": "completed",
            "usage": { "input_tokens": 1000, "output_tokens": 500, "total_tokens": 1500 },
            "defect": defect.map(|(d, _)| format!("{d:?}")),
        });
        std::fs::write(dir.join("run.json"), serde_json::to_vec_pretty(&run)?)?;
        dirs.push(dir);
    }
    // The template itself must not be audited as a bundle.
    std::fs::remove_dir_all(&template)?;
    Ok(dirs)
}

/// A copy, not a hard link: vouch does not read a bundle file that has other names (it may be a
/// file from outside the bundle).
fn link_or_copy(src: &Path, dst: &Path) -> std::io::Result<()> {
    std::fs::copy(src, dst).map(|_| ())
}
