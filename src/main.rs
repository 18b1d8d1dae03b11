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
#[command(name = "vouch", version, about, long_about = None, after_help = MAIN_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// When to colour the output: `auto` colours a terminal unless NO_COLOR is set (CLICOLOR_FORCE
    /// colours any output, CLICOLOR=0 none).
    #[arg(long, global = true, value_enum, default_value_t = ColorWhen::Auto, value_name = "WHEN")]
    color: ColorWhen,
    /// Print nothing on standard output: the exit status is the answer (files named with
    /// -o/--output are still written; errors still go to standard error).
    #[arg(long, short, global = true)]
    quiet: bool,
}

const MAIN_HELP: &str = "\
Examples:
  vouch verify financial_analysis_output --source statements.csv
  vouch verify runs/run_20261201T101500Z_1a2b3c4d          (a run directory: its own source copy)
  vouch audit runs/ --source statements.csv -o results.jsonl
  vouch compare baseline.jsonl candidate.jsonl
  vouch explain metrics.value

Exit status (every subcommand): 0 accept / pass, 1 reject / worse, 2 could not verify (bad usage
or input), 3 `compare` inconclusive. `vouch COMMAND --help` gives each command's own.";

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ColorWhen {
    Auto,
    Always,
    Never,
}

static COLOR: std::sync::OnceLock<ColorWhen> = std::sync::OnceLock::new();

/// Whether output to a stream (a terminal or not) is coloured: `--color always|never` decide;
/// with `auto`, a non-empty NO_COLOR turns colour off, a CLICOLOR_FORCE other than `0` turns it
/// on, CLICOLOR=0 off, and otherwise a terminal is coloured (docs/decisions.md).
pub(crate) fn color_for(terminal: bool) -> bool {
    let set = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    match COLOR.get().copied().unwrap_or(ColorWhen::Auto) {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => {
            if set("NO_COLOR").is_some() {
                false
            } else if set("CLICOLOR_FORCE").is_some_and(|v| v != "0") {
                true
            } else if set("CLICOLOR").is_some_and(|v| v == "0") {
                false
            } else {
                terminal
            }
        }
    }
}

static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Writes a report: to `output` when given, else to standard output unless --quiet.
fn emit(text: &str, output: Option<&PathBuf>) -> Result<()> {
    match output {
        Some(path) => {
            std::fs::write(path, text).with_context(|| format!("cannot write `{}`", path.display()))
        }
        None => {
            if !QUIET.load(std::sync::atomic::Ordering::Relaxed) {
                // A closed pipe (e.g. `| head`) is not an error worth a panic.
                let _ = std::io::stdout().lock().write_all(text.as_bytes());
            }
            Ok(())
        }
    }
}

#[derive(Subcommand)]
enum Command {
    /// Verify one bundle (the six artifacts) or one run directory.
    #[command(after_help = VERIFY_HELP)]
    Verify(VerifyArgs),
    /// Verify many runs and bundles (directories, .zip and .tar.gz archives) in parallel.
    ///
    /// Finds run directories (run.json + bundle/) and bare bundles recursively, verifies each
    /// (each distinct source is recomputed once; verdicts are cached by content), and prints a
    /// summary. The same run found twice (a folder and an archive of it) is counted once.
    #[command(after_help = AUDIT_HELP)]
    Audit(AuditArgs),
    /// Compare a candidate set of runs with a baseline: is the candidate significantly worse?
    ///
    /// Each side is an audit results file (`vouch audit -o FILE.jsonl|.csv`) or a directory of
    /// runs. The accept rate and every check are tested (Fisher's exact test, or McNemar's when
    /// runs pair up by source and trial), Holm–Bonferroni adjusted across them.
    #[command(after_help = COMPARE_HELP)]
    Compare(CompareArgs),
    /// Explain a check: what it checks, why it matters, an example finding, how to fix it.
    #[command(after_help = EXPLAIN_HELP)]
    Explain {
        /// A check id, e.g. `metrics.value` (`vouch checks` lists them).
        check: String,
    },
    /// Print the check catalogue: every stable check id with its severity and meaning.
    #[command(
        after_help = "Examples:\n  vouch checks\n  vouch checks --format markdown > docs/checks.md\n\nExit status: 0."
    )]
    Checks {
        /// `text` for reading, `markdown` for docs/checks.md.
        #[arg(long, short, value_enum, default_value_t = CatalogueFormat::Text)]
        format: CatalogueFormat,
    },
    /// Print the embedded default spec (the contract as data).
    #[command(
        after_help = "Examples:\n  vouch spec > my-spec.toml      (edit, then: vouch verify … --spec my-spec.toml)\n\nExit status: 0."
    )]
    Spec,
    /// Print a shell completion script.
    #[command(after_help = COMPLETIONS_HELP)]
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Run the hosted-sandbox agent end to end (upload, container, model turns, download), then
    /// verify what it produced; the container and the upload are always deleted afterwards.
    ///
    /// Uses OPENAI_BASE_URL (default https://api.openai.com/v1) and OPENAI_API_KEY, or an
    /// in-process emulator with --emulator. Each trial writes a run directory (docs/runs.md).
    #[command(after_help = RUN_HELP)]
    Run(cli_run::RunArgs),
    /// Serve a local emulator of the API endpoints `vouch run` uses, with a scripted agent that
    /// runs a playbook's shell commands under bubblewrap (point OPENAI_BASE_URL at it).
    #[command(after_help = EMULATE_HELP)]
    Emulate(cli_run::EmulateArgs),
}

const VERIFY_HELP: &str = "\
Examples:
  vouch verify financial_analysis_output --source financial_data/statements.csv
  vouch verify out --source my-copy.csv --source-name statements.csv
  vouch verify runs/run_20261201T101500Z_1a2b3c4d --format json -o report.json
  vouch verify out --source statements.csv --format github      (annotations in a workflow)
  vouch verify out --source statements.csv --quiet && echo accepted

Exit status: 0 accept, 1 reject, 2 could not verify (bad usage; unreadable source, spec or
run.json; missing bundle directory; --reexecute without bubblewrap or python3).";

const AUDIT_HELP: &str = "\
Examples:
  vouch audit runs/
  vouch audit runs/ old-runs.tar.gz --source statements.csv -o results.jsonl
  vouch audit runs/ --format junit -o audit.xml
  vouch audit runs/ --format sarif > audit.sarif

Exit status: 0 every run accepted, 1 a run was rejected or could not be verified (they are
listed with their paths), 2 bad usage, unreadable inputs, or nothing found to verify.";

const COMPARE_HELP: &str = "\
Examples:
  vouch compare baseline.jsonl candidate.jsonl
  vouch compare runs/v1 runs/v2 --source statements.csv --min-effect 5 --format markdown

Reading the report: pass^k is the share of sources (or trials) whose k repeated runs all passed;
adjusted p is a test's p-value after the Holm–Bonferroni correction over every test made.

Exit status: 0 not worse (or better) with enough runs, 1 worse (the accept rate or a check,
after the correction), 2 bad input, 3 inconclusive: no regression seen, but too few runs to
rule out a --min-effect drop in the accept rate.";

const EXPLAIN_HELP: &str = "\
Examples:
  vouch explain metrics.value
  vouch explain memo.contradicted_number

Exit status: 0, 2 an unknown check id (the nearest ids are suggested).";

const COMPLETIONS_HELP: &str = "\
Examples:
  vouch completions bash > ~/.local/share/bash-completion/completions/vouch
  vouch completions zsh > \"${fpath[1]}/_vouch\"
  vouch completions fish > ~/.config/fish/completions/vouch.fish

Exit status: 0, 2 an unknown shell.";

const RUN_HELP: &str = "\
Examples:
  vouch run --source statements.csv --trials 5 --label prompt-v2
  vouch run --emulator --source statements.csv --out-dir /tmp/runs

Exit status: 0 every trial accepted, 1 a trial was rejected, did not finish or could not clean
up, 2 bad usage.";

const EMULATE_HELP: &str = "\
Examples:
  vouch emulate --addr 127.0.0.1:8089 --playbook northstar
  OPENAI_BASE_URL=http://127.0.0.1:8089/v1 OPENAI_API_KEY=x vouch run --source statements.csv

Exit status: 0 after Ctrl-C, 2 bad usage (an unknown playbook, an address in use, no bubblewrap).";

#[derive(Clone, Copy, ValueEnum)]
enum CatalogueFormat {
    Text,
    Markdown,
}

#[derive(clap::Args)]
struct VerifyArgs {
    /// The bundle directory, or a run directory (`run.json`, `bundle/`, `source/`, as
    /// `vouch run` writes it).
    bundle: PathBuf,
    /// Your own copy of the source statements CSV (the trusted input). A run directory's own
    /// copy under `source/` is used when this is not given (its sha256 must match run.json's).
    #[arg(long, short)]
    source: Option<PathBuf>,
    /// The file name the agent was given the source under, when your copy is named otherwise
    /// (the manifest's input_filename and the memo's citations are judged against it).
    #[arg(long, value_name = "NAME")]
    source_name: Option<String>,
    /// A spec file to use instead of the embedded financial-analyst contract.
    #[arg(long)]
    spec: Option<PathBuf>,
    /// Report format.
    #[arg(long, short, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Write the report to this file instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Also show info findings (human and github formats) and every skip reason.
    #[arg(long, short)]
    verbose: bool,
    /// List at most N findings in the human report (findings that repeat are listed once with
    /// a count); the rest are counted.
    #[arg(long, value_name = "N")]
    max_findings: Option<usize>,
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
    #[arg(long, short, visible_alias = "out", value_name = "FILE")]
    output: Option<PathBuf>,
    /// Summary format (on standard output).
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
    /// Counts, the most frequent failing checks, the worst runs, the runs not verifiable.
    Human,
    /// The summary as JSON.
    Json,
    /// The summary as Markdown tables.
    Markdown,
    /// JUnit XML: one testcase per run that was not accepted (and one for the accepted ones).
    Junit,
    /// GitHub workflow annotations, one per failing check of a run.
    Github,
    /// SARIF 2.1.0, one result per failing check of a run.
    Sarif,
}

#[derive(clap::Args)]
struct CompareArgs {
    /// The baseline runs: an audit results file (.jsonl or .csv) or a directory of runs.
    baseline: PathBuf,
    /// The candidate runs: an audit results file (.jsonl or .csv) or a directory of runs.
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
    /// Write the report to this file instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,
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
    /// The versioned JSON report (schema `vouch.report` v2, docs/schema/report.schema.json).
    Json,
    /// A PR-comment-ready summary with collapsed details.
    Markdown,
    /// JUnit XML, one testcase per check.
    Junit,
    /// GitHub workflow annotations (`::error file=…,line=…::`), then the verdict.
    Github,
    /// SARIF 2.1.0, for code-scanning dashboards.
    Sarif,
}

// See Cargo.toml and docs/performance.md.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let _ = COLOR.set(cli.color);
    QUIET.store(cli.quiet, std::sync::atomic::Ordering::Relaxed);
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
        Command::Checks { format } => {
            let text = match format {
                CatalogueFormat::Text => vouch::report::registry::text(),
                CatalogueFormat::Markdown => vouch::report::registry::markdown(),
            };
            emit(&text, None)?;
            Ok(0)
        }
        Command::Spec => {
            emit(vouch::spec::DEFAULT_SPEC, None)?;
            Ok(0)
        }
        Command::Explain { check } => match vouch::report::explain::explain(&check) {
            Ok(text) => {
                emit(&text, None)?;
                Ok(0)
            }
            Err(e) => anyhow::bail!(e),
        },
        Command::Completions { shell } => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            let mut buf = Vec::new();
            clap_complete::generate(shell, &mut cmd, "vouch", &mut buf);
            emit(&String::from_utf8_lossy(&buf), None)?;
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

/// What `vouch verify` was pointed at: the bundle, where the trusted source comes from, and the
/// name the agent saw it under.
struct VerifyTarget {
    bundle_dir: PathBuf,
    source: TargetSource,
    source_name: Option<String>,
}

enum TargetSource {
    /// The user's own copy (`--source`).
    Path(PathBuf),
    /// A run directory's copy, checked against its record: where it is, its name and bytes.
    RunCopy(PathBuf, String, Vec<u8>),
}

/// A run directory (`run.json` and `bundle/`) or a bare bundle, with the source it is to be
/// verified against: `--source` when given, else the run's own checked copy.
fn verify_target(args: &VerifyArgs, spec: &Spec) -> Result<VerifyTarget> {
    use vouch::audit::runner::{read_run_meta, run_source_copy, RunSourceError};
    if let Some(name) = &args.source_name {
        if name.is_empty() || name.contains(['/', '\\', '\0']) || name == "." || name == ".." {
            anyhow::bail!("--source-name must be a plain file name, got `{name}`");
        }
    }
    let dir = &args.bundle;
    let is_run = dir.join("run.json").is_file() && dir.join("bundle").is_dir();
    if !is_run {
        let Some(source) = &args.source else {
            anyhow::bail!(
                "`{}` is a bundle, not a run directory (run.json and bundle/): give your copy of \
                 the source with --source FILE",
                dir.display()
            );
        };
        return Ok(VerifyTarget {
            bundle_dir: dir.clone(),
            source: TargetSource::Path(source.clone()),
            source_name: args.source_name.clone(),
        });
    }
    let meta = read_run_meta(dir).map_err(anyhow::Error::msg)?;
    let recorded_name = meta.source.as_ref().map(|s| s.file_name.clone());
    let source = match &args.source {
        Some(p) => TargetSource::Path(p.clone()),
        None => match run_source_copy(dir, &meta, spec.limits.max_artifact_bytes) {
            Ok((name, bytes)) => TargetSource::RunCopy(dir.join("source").join(&name), name, bytes),
            Err(RunSourceError::Absent(why) | RunSourceError::Bad(why)) => {
                anyhow::bail!("`{}`: {why}", dir.display())
            }
        },
    };
    Ok(VerifyTarget {
        bundle_dir: dir.join("bundle"),
        source,
        source_name: args.source_name.clone().or(recorded_name),
    })
}

fn verify(args: VerifyArgs) -> Result<u8> {
    vouch::verify::init_pool(Some(vouch::verify::SINGLE_BUNDLE_THREADS));
    let spec = load_spec(args.spec.as_ref())?;
    let target = verify_target(&args, &spec)?;
    let bundle = Bundle::load_dir(&target.bundle_dir, &spec)?;
    if args.reexecute {
        vouch::reexecute::available()?;
    }
    // The script's parse starts on the pool while the source is read.
    let (_stmts, mut report) = vouch::verify::verify_loading(&spec, &bundle, || {
        let read = match &target.source {
            TargetSource::Path(p) => Statements::read_path(p, &spec),
            TargetSource::RunCopy(path, name, bytes) => {
                Statements::read_bytes(&path.display().to_string(), name, bytes, &spec)
            }
        };
        read.map(|mut stmts| {
            if let Some(name) = &target.source_name {
                stmts.file_name = name.clone();
            }
            stmts
        })
    })?;
    if args.reexecute {
        let limits = vouch::reexecute::jail::Limits::default();
        let source_path = match &target.source {
            TargetSource::Path(p) | TargetSource::RunCopy(p, ..) => p,
        };
        let found = vouch::reexecute::reexecute(&spec, source_path, &bundle, &limits)?;
        report.findings.extend(found);
        report.reexecuted = true;
    }
    let color = color_for(args.output.is_none() && std::io::stdout().is_terminal());
    let text = match args.format {
        Format::Human => human::render(
            &report,
            &human::Style {
                color,
                verbose: args.verbose,
                max_findings: args.max_findings,
            },
        ),
        Format::Json => json::render(&report),
        Format::Markdown => vouch::report::markdown::render(&report),
        Format::Junit => vouch::report::junit::render(&report),
        Format::Github => vouch::report::github::render(&report, args.verbose),
        Format::Sarif => vouch::report::sarif::render(&report),
    };
    emit(&text, args.output.as_ref())?;
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
    let mut writer = match &args.output {
        Some(p) => Some(ResultsWriter::create(p).map_err(anyhow::Error::msg)?),
        None => None,
    };
    // The bar counts runs: directories are one each; an archive's runs are added as they come.
    let dirs = found
        .iter()
        .filter(|f| !matches!(f, vouch::audit::discover::Found::Archive(_)))
        .count();
    let progress =
        if std::io::stderr().is_terminal() && !QUIET.load(std::sync::atomic::Ordering::Relaxed) {
            let bar = indicatif::ProgressBar::new(dirs as u64);
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:40}] {pos}/{len} runs {msg}",
                )
                .expect("valid template")
                .progress_chars("=> "),
            );
            Some(bar)
        } else {
            None
        };
    let mut summary = Summary::default();
    let ci_format = matches!(
        args.format,
        SummaryFormat::Junit | SummaryFormat::Github | SummaryFormat::Sarif
    );
    let mut collected = vouch::audit::ci::Collected::default();
    let mut write_error: Option<String> = None;
    // A run found twice (a folder and an archive of it) is counted once: runs are known by the
    // run_id their run.json records.
    let mut seen: std::collections::HashMap<String, String> = Default::default();
    let mut duplicates = 0usize;
    auditor.run(&found, |r| {
        if let Some(bar) = &progress {
            if r.path.contains('!') {
                bar.inc_length(1);
            }
            bar.inc(1);
        }
        if r.run_id != r.path {
            if let Some(first) = seen.get(&r.run_id) {
                duplicates += 1;
                if duplicates <= 10 {
                    let (a, b) = if *first <= r.path {
                        (first.as_str(), r.path.as_str())
                    } else {
                        (r.path.as_str(), first.as_str())
                    };
                    let line = format!(
                        "vouch audit: warning: run `{}` found twice, at `{}` and `{}`; counted once",
                        vouch::report::inert(&r.run_id),
                        vouch::report::inert(a),
                        vouch::report::inert(b)
                    );
                    match &progress {
                        Some(bar) => bar.println(line),
                        None => eprintln!("{line}"),
                    }
                }
                return;
            }
            seen.insert(r.run_id.clone(), r.path.clone());
        }
        summary.add(&r);
        if ci_format {
            collected.add(&r);
        }
        if let (Some(w), None) = (writer.as_mut(), &write_error) {
            if let Err(e) = w.write(&r) {
                write_error = Some(e);
            }
        }
        if let Some(bar) = &progress {
            bar.set_message(format!(
                "{} accept, {} reject",
                summary.accept, summary.reject
            ));
        }
    });
    if duplicates > 10 {
        eprintln!(
            "vouch audit: warning: {} more runs found twice; each counted once",
            duplicates - 10
        );
    }
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    if let Some(e) = write_error {
        anyhow::bail!("writing results: {e}");
    }
    if let Some(w) = writer {
        w.finish().map_err(anyhow::Error::msg)?;
    }
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
    let text = match args.format {
        SummaryFormat::Human => summary.render_human(),
        SummaryFormat::Json => summary.render_json(),
        SummaryFormat::Markdown => summary.render_markdown(),
        SummaryFormat::Junit => vouch::audit::ci::junit(&collected),
        SummaryFormat::Github => vouch::audit::ci::github(&collected),
        SummaryFormat::Sarif => vouch::audit::ci::sarif(&collected),
    };
    emit(&text, None)?;
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
    emit(&text, args.output.as_ref())?;
    Ok(comparison.exit_code() as u8)
}
