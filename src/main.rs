//! The `vouch` command line. Library errors become one-line reasons on stderr and exit code 2.

use anyhow::{Context as _, Result};
use clap::{Parser, Subcommand, ValueEnum};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use vouch::bundle::Bundle;
use vouch::report::{human, json};
use vouch::source::Statements;
use vouch::Spec;

#[path = "run/cli.rs"]
mod cli_run;

/// Independently verify what an AI financial-analyst agent produced.
///
/// vouch recomputes every figure from your own copy of the source CSV, checks the artifacts
/// against the contract, and says accept or reject.
#[derive(Parser)]
#[command(name = "vouch", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Verify one bundle (a directory holding the six artifacts).
    ///
    /// Exit status: 0 accept, 1 reject, 2 could not verify (bad usage, unreadable source or
    /// spec, missing bundle directory).
    Verify(VerifyArgs),
    /// Verify many runs and bundles (directories, .zip and .tar.gz archives) in parallel.
    ///
    /// Finds run directories (run.json + bundle/) and bare bundles recursively, verifies each
    /// (each distinct source is recomputed once; verdicts are cached by content), and prints a
    /// summary. Exit status: 0 every run accepted, 1 any run rejected or not verifiable,
    /// 2 bad usage, unreadable inputs, or nothing found to verify.
    Audit(AuditArgs),
    /// Compare a candidate set of runs with a baseline: is the candidate significantly worse?
    ///
    /// Each side is an audit results file (`vouch audit --out FILE.jsonl|.csv`). Exit status:
    /// 1 when the candidate is significantly worse on the accept rate or on any check after the
    /// Holm–Bonferroni correction; 3 (inconclusive) when it is not, but the sides have fewer runs
    /// than a drop of --min-effect points in the accept rate needs to be seen (80 % power at
    /// --alpha); 0 when not worse with enough runs; 2 on bad input.
    Compare(CompareArgs),
    /// Print the check catalogue (every stable check id with its meaning) as Markdown.
    Checks,
    /// Print the embedded default spec (the contract as data).
    Spec,
    /// Run the hosted-sandbox agent end to end (upload, container, model turns, download), then
    /// verify what it produced; the container and the upload are always deleted afterwards.
    ///
    /// Uses OPENAI_BASE_URL (default https://api.openai.com/v1) and OPENAI_API_KEY, or an
    /// in-process emulator with --emulator. Each trial writes a run directory (docs/runs.md).
    /// Exit status: 0 every trial accepted, 1 a trial was rejected, did not finish or could not
    /// clean up, 2 bad usage.
    Run(cli_run::RunArgs),
    /// Serve a local emulator of the API endpoints `vouch run` uses, with a scripted agent that
    /// runs a playbook's shell commands under bubblewrap (point OPENAI_BASE_URL at it).
    Emulate(cli_run::EmulateArgs),
}

#[derive(clap::Args)]
struct VerifyArgs {
    /// The bundle directory.
    bundle: PathBuf,
    /// Your own copy of the source statements CSV (the trusted input).
    #[arg(long, short)]
    source: PathBuf,
    /// The file name the agent was given the source under, when your copy is named otherwise
    /// (the manifest's input_filename and the memo's citations are judged against it).
    #[arg(long, value_name = "NAME")]
    source_name: Option<String>,
    /// A spec file to use instead of the embedded financial-analyst contract.
    #[arg(long)]
    spec: Option<PathBuf>,
    /// Report format (human, json, markdown, junit).
    #[arg(long, short, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Write the report to this file instead of standard output.
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// Also show info findings in the human report.
    #[arg(long, short)]
    verbose: bool,
    /// Re-run the bundle's script with python3 under bubblewrap (no network, read-only system,
    /// limits) on a copy of the source, and require it to reproduce the bundle's tables and
    /// manifest (exit 2 when bubblewrap or python3 is missing; never runs unsandboxed).
    #[arg(long)]
    reexecute: bool,
}

#[derive(clap::Args)]
struct AuditArgs {
    /// Directories (searched recursively) and archives holding runs or bundles.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// The source CSV for bare bundles and runs without a source copy.
    #[arg(long, short)]
    source: Option<PathBuf>,
    /// Write one row per (run, check) to this file: .parquet, .csv or .jsonl.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Summary format.
    #[arg(long, short, value_enum, default_value_t = SummaryFormat::Human)]
    format: SummaryFormat,
    /// Verdict cache directory (default: the user's cache dir, e.g. ~/.cache/vouch/verdicts).
    #[arg(long, conflicts_with = "no_cache")]
    cache: Option<PathBuf>,
    /// Do not read or write the verdict cache.
    #[arg(long)]
    no_cache: bool,
    /// A spec file to use instead of the embedded contract.
    #[arg(long)]
    spec: Option<PathBuf>,
    /// Worker threads (default: one per core).
    #[arg(long, short)]
    jobs: Option<usize>,
}

#[derive(Clone, Copy, ValueEnum)]
enum SummaryFormat {
    Human,
    Json,
    Markdown,
}

#[derive(clap::Args)]
struct CompareArgs {
    /// The baseline runs: an audit results file (.jsonl or .csv).
    baseline: PathBuf,
    /// The candidate runs: an audit results file (.jsonl or .csv).
    candidate: PathBuf,
    /// Your own copy of the source statements CSV, for sides that are bare bundles.
    #[arg(long, short)]
    source: Option<PathBuf>,
    /// Family-wise significance level (Holm–Bonferroni across the accept rate and the checks).
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
    /// The smallest drop in the accept rate, in points, the runs must be able to show; with
    /// fewer runs than that needs (80 % power), a comparison that finds no regression is
    /// inconclusive (exit 3), not "not worse".
    #[arg(long, default_value_t = 10.0)]
    min_effect: f64,
    /// Report format.
    #[arg(long, short, value_enum, default_value_t = CompareFormat::Human)]
    format: CompareFormat,
}

#[derive(Clone, Copy, ValueEnum)]
enum CompareFormat {
    /// A table per side, then the differences by adjusted p.
    Human,
    /// The versioned JSON document (schema `vouch.compare` v1).
    Json,
    /// Markdown to paste into a pull request.
    Markdown,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// Compiler-style lines and a summary.
    Human,
    /// The versioned JSON report (schema `vouch.report` v1).
    Json,
    /// A PR-comment-ready summary with collapsed details.
    Markdown,
    /// JUnit XML, one testcase per check.
    Junit,
}

// See Cargo.toml and docs/performance.md.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("vouch: error: {:#}", e);
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<u8> {
    match cli.command {
        Command::Verify(args) => verify(args),
        Command::Audit(args) => audit(args),
        Command::Compare(args) => compare(args),
        Command::Checks => {
            print!("{}", vouch::report::registry::markdown());
            Ok(0)
        }
        Command::Spec => {
            print!("{}", vouch::spec::DEFAULT_SPEC);
            Ok(0)
        }
        Command::Run(args) => cli_run::run(args),
        Command::Emulate(args) => cli_run::emulate(args),
    }
}

fn load_spec(path: Option<&PathBuf>) -> Result<Spec> {
    match path {
        None => Ok(Spec::default_spec()),
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("cannot read spec `{}`", p.display()))?;
            Spec::parse(&text).with_context(|| format!("invalid spec `{}`", p.display()))
        }
    }
}

fn verify(args: VerifyArgs) -> Result<u8> {
    vouch::verify::init_pool(Some(vouch::verify::SINGLE_BUNDLE_THREADS));
    let spec = load_spec(args.spec.as_ref())?;
    let bundle = Bundle::load_dir(&args.bundle, &spec)?;
    if args.reexecute {
        vouch::reexecute::available()?;
    }
    // The script's parse starts on the pool while the source is read.
    if let Some(name) = &args.source_name {
        if name.is_empty() || name.contains(['/', '\\', '\0']) || name == "." || name == ".." {
            anyhow::bail!("--source-name must be a plain file name, got `{name}`");
        }
    }
    let (_stmts, mut report) = vouch::verify::verify_loading(&spec, &bundle, || {
        Statements::read_path(&args.source, &spec).map(|mut stmts| {
            if let Some(name) = &args.source_name {
                stmts.file_name = name.clone();
            }
            stmts
        })
    })?;
    if args.reexecute {
        let limits = vouch::reexecute::jail::Limits::default();
        let found = vouch::reexecute::reexecute(&spec, &args.source, &bundle, &limits)?;
        report.findings.extend(found);
        report.reexecuted = true;
    }
    let to_terminal = args.output.is_none() && std::io::stdout().is_terminal();
    let color = to_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let text = match args.format {
        Format::Human => human::render(
            &report,
            &human::Style {
                color,
                verbose: args.verbose,
            },
        ),
        Format::Json => json::render(&report),
        Format::Markdown => vouch::report::markdown::render(&report),
        Format::Junit => vouch::report::junit::render(&report),
    };
    match &args.output {
        Some(path) => std::fs::write(path, text)
            .with_context(|| format!("cannot write `{}`", path.display()))?,
        None => {
            let mut out = std::io::stdout().lock();
            // A closed pipe (e.g. `| head`) is not an error worth a panic.
            let _ = out.write_all(text.as_bytes());
        }
    }
    Ok(report.verdict().exit_code() as u8)
}

fn audit(args: AuditArgs) -> Result<u8> {
    use vouch::audit::{cache, discover, output::ResultsWriter, runner::Auditor, summary::Summary};
    let spec = std::sync::Arc::new(load_spec(args.spec.as_ref())?);
    // polars only sees the collected rows; one thread keeps it from fighting rayon's workers.
    if std::env::var_os("POLARS_MAX_THREADS").is_none() {
        std::env::set_var("POLARS_MAX_THREADS", "1");
    }
    vouch::verify::init_pool(args.jobs);
    let found = discover::discover(&args.paths, &spec).map_err(anyhow::Error::msg)?;
    let cache_dir = if args.no_cache {
        None
    } else {
        Some(args.cache.clone().unwrap_or_else(cache::default_dir))
    };
    let auditor =
        Auditor::new(spec, args.source.as_deref(), cache_dir).map_err(anyhow::Error::msg)?;
    let mut writer = match &args.out {
        Some(p) => Some(ResultsWriter::create(p).map_err(anyhow::Error::msg)?),
        None => None,
    };
    let progress = if std::io::stderr().is_terminal() {
        let bar = indicatif::ProgressBar::new(found.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{elapsed_precise} [{bar:40}] {pos}/{len} {msg}",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        Some(bar)
    } else {
        None
    };
    let mut summary = Summary::default();
    let mut write_error: Option<String> = None;
    auditor.run(&found, |r| {
        summary.add(&r);
        if let (Some(w), None) = (writer.as_mut(), &write_error) {
            if let Err(e) = w.write(&r) {
                write_error = Some(e);
            }
        }
        if let Some(bar) = &progress {
            if !r.path.contains('!') {
                bar.inc(1);
            }
            bar.set_message(format!(
                "{} accept, {} reject",
                summary.accept, summary.reject
            ));
        }
    });
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    if let Some(e) = write_error {
        anyhow::bail!("writing results: {e}");
    }
    if let Some(w) = writer {
        w.finish().map_err(anyhow::Error::msg)?;
    }
    let text = match args.format {
        SummaryFormat::Human => summary.render_human(),
        SummaryFormat::Json => summary.render_json(),
        SummaryFormat::Markdown => summary.render_markdown(),
    };
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
    // Nothing verified is no pass: a CI job pointed at the wrong path, or an archive holding no
    // bundle, must not go green.
    if summary.accept + summary.reject + summary.error == 0 {
        eprintln!(
            "vouch audit: nothing to verify: no run directory, bundle or archive holding one was \
             found in {}",
            args.paths
                .iter()
                .map(|p| format!("`{}`", p.display()))
                .collect::<Vec<_>>()
                .join(", ")
        );
        return Ok(2);
    }
    Ok(if summary.reject == 0 && summary.error == 0 {
        0
    } else {
        1
    })
}

fn compare(args: CompareArgs) -> Result<u8> {
    if !(args.alpha > 0.0 && args.alpha < 1.0) {
        anyhow::bail!(
            "--alpha must be between 0 and 1 (exclusive), got {}",
            args.alpha
        );
    }
    let spec = std::sync::Arc::new(Spec::default_spec());
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
    };
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
    Ok(comparison.exit_code() as u8)
}
