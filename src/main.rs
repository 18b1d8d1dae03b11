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
    /// A spec file to use instead of the embedded financial-analyst contract.
    #[arg(long)]
    spec: Option<PathBuf>,
    /// Report format.
    #[arg(long, short, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Write the report to this file instead of standard output.
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// Also show info findings in the human report.
    #[arg(long, short)]
    verbose: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// Compiler-style lines and a summary.
    Human,
    /// The versioned JSON report (schema `vouch.report` v1).
    Json,
}

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
    let spec = load_spec(args.spec.as_ref())?;
    let stmts = Statements::read_path(&args.source, &spec)?;
    let bundle = Bundle::load_dir(&args.bundle, &spec)?;
    let report = vouch::verify::verify(&spec, &stmts, &bundle);
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
