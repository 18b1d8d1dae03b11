//! `vouch compare`: is a candidate set of runs worse than a baseline?

use super::output::emit;
use anyhow::Result;
use clap::ValueEnum;
use std::path::PathBuf;

pub const HELP: &str = "\
Examples:
  vouch compare baseline.jsonl candidate.jsonl
  vouch compare runs/v1 runs/v2 --source statements.csv --min-effect 5 --format markdown
  vouch compare baseline.jsonl candidate.jsonl --format html -o compare.html

Reading the report: pass^k is the share of sources (or trials) whose k repeated runs all passed;
adjusted p is a test's p-value after the Holm–Bonferroni correction over every test made.

Exit status: 0 not worse (or better) with enough runs, 1 worse (the accept rate or a check,
after the correction), 2 bad input, 3 inconclusive: no regression seen, but too few runs to
rule out a --min-effect drop in the accept rate.";

#[derive(clap::Args)]
pub struct CompareArgs {
    /// The baseline runs: an audit results file (.jsonl or .csv) or a directory of runs.
    pub baseline: PathBuf,
    /// The candidate runs: an audit results file (.jsonl or .csv) or a directory of runs.
    pub candidate: PathBuf,
    /// Your own copy of the source statements CSV, for sides that are bare bundles.
    #[arg(long, short)]
    pub source: Option<PathBuf>,
    /// Family-wise significance level (Holm–Bonferroni across the accept rate and the checks).
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    /// The smallest drop in the accept rate, in points, the runs must be able to show; with
    /// fewer runs than that needs (80 % power), a comparison that finds no regression is
    /// inconclusive (exit 3), not "not worse".
    #[arg(long, default_value_t = 10.0)]
    pub min_effect: f64,
    /// Report format.
    #[arg(long, short, value_enum, default_value_t = CompareFormat::Human)]
    pub format: CompareFormat,
    /// Write the report to this file instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// A spec file to verify directory sides with, instead of the embedded contract.
    #[arg(long, value_name = "FILE")]
    pub spec: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum CompareFormat {
    /// A table per side, then the differences by adjusted p.
    Human,
    /// The versioned JSON document (schema `vouch.compare` v1).
    Json,
    /// Markdown to paste into a pull request.
    Markdown,
    /// One self-contained HTML page: the decision, the accept rates side by side, and a forest
    /// plot of every tested difference with its 95 % interval.
    Html,
}

pub fn compare(args: CompareArgs) -> Result<u8> {
    if !(args.alpha > 0.0 && args.alpha < 1.0) {
        anyhow::bail!(
            "--alpha must be between 0 and 1 (exclusive), got {}",
            args.alpha
        );
    }
    let spec = std::sync::Arc::new(super::load_spec(args.spec.as_ref())?);
    let read_side = |path: &PathBuf| -> Result<Vec<vouch::audit::RunResult>> {
        let runs = if path.is_dir() {
            // A directory side is verified on the fly, exactly as `vouch audit` does.
            let found = vouch::audit::discover::discover(std::slice::from_ref(path), &spec)
                .map_err(anyhow::Error::msg)?;
            let cache = Some(vouch::audit::cache::default_dir());
            let auditor =
                vouch::audit::runner::Auditor::new(spec.clone(), args.source.as_deref(), cache)
                    .map_err(anyhow::Error::msg)?;
            let mut runs = Vec::new();
            auditor.run(&found, |r| runs.push(r));
            runs
        } else {
            vouch::compare::read_results(path)?
        };
        if runs.is_empty() {
            anyhow::bail!("`{}` holds no runs", path.display());
        }
        Ok(runs)
    };
    let baseline = read_side(&args.baseline)?;
    let candidate = read_side(&args.candidate)?;
    if !(args.min_effect > 0.0 && args.min_effect <= 100.0) {
        anyhow::bail!(
            "--min-effect must be between 0 and 100 points, got {}",
            args.min_effect
        );
    }
    let mut comparison = vouch::compare::compare(&baseline, &candidate, args.alpha);
    comparison.min_effect = args.min_effect / 100.0;
    let baseline_name = args.baseline.display().to_string();
    let candidate_name = args.candidate.display().to_string();
    let names = vouch::compare::render::Names {
        baseline: &baseline_name,
        candidate: &candidate_name,
    };
    let text = match args.format {
        CompareFormat::Human => vouch::compare::render::human(&comparison, names),
        CompareFormat::Json => vouch::compare::render::json(&comparison, names),
        CompareFormat::Markdown => vouch::compare::render::markdown(&comparison, names),
        CompareFormat::Html => vouch::compare::html::render(&comparison, names),
    };
    emit(&text, args.output.as_ref())?;
    Ok(comparison.exit_code() as u8)
}
