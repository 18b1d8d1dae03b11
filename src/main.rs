//! The `vouch` command line. Library errors become one-line reasons on stderr and exit code 2.

use anyhow::Result;
use clap::{Parser, Subcommand, ValueEnum};
use cli::output::{emit, ColorWhen, COLOR, QUIET};
use cli::{audit, compare, run as cli_run, verify};
use std::process::ExitCode;

mod cli;

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

#[derive(Subcommand)]
enum Command {
    /// Verify one bundle (the six artifacts) or one run directory.
    #[command(after_help = verify::HELP)]
    Verify(verify::VerifyArgs),
    /// Verify many runs and bundles (directories, .zip and .tar.gz archives) in parallel.
    ///
    /// Finds run directories (run.json + bundle/) and bare bundles recursively, verifies each
    /// (each distinct source is recomputed once; verdicts are cached by content), and prints a
    /// summary. The same run found twice (a folder and an archive of it) is counted once.
    #[command(after_help = audit::HELP)]
    Audit(audit::AuditArgs),
    /// Compare a candidate set of runs with a baseline: is the candidate significantly worse?
    ///
    /// Each side is an audit results file (`vouch audit -o FILE.jsonl|.csv`) or a directory of
    /// runs. The accept rate and every check are tested (Fisher's exact test, or McNemar's when
    /// runs pair up by source and trial), Holm–Bonferroni adjusted across them.
    #[command(after_help = compare::HELP)]
    Compare(compare::CompareArgs),
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
  vouch run --source statements.csv --repair 2 --environment auto
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
        Command::Verify(args) => verify::verify(args),
        Command::Audit(args) => audit::audit(args),
        Command::Compare(args) => compare::compare(args),
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
