//! `vouch verify`: one bundle or one run directory.

use super::output::{color_for, emit};
use anyhow::Result;
use clap::ValueEnum;
use std::io::IsTerminal;
use std::path::PathBuf;
use vouch::bundle::Bundle;
use vouch::report::{human, json};

pub const HELP: &str = "\
Examples:
  vouch verify financial_analysis_output --source financial_data/statements.csv
  vouch verify out --source my-copy.csv --source-name statements.csv
  vouch verify runs/run_20261201T101500Z_1a2b3c4d --format json -o report.json
  vouch verify out --source statements.csv --format github      (annotations in a workflow)
  vouch verify out --source statements.csv --format html -o report.html   (open it in a browser)
  vouch verify out --source statements.csv --quiet && echo accepted

Exit status: 0 accept, 1 reject, 2 could not verify (bad usage; unreadable source, spec or
run.json; missing bundle directory; --reexecute without bubblewrap or python3).";

#[derive(clap::Args)]
pub struct VerifyArgs {
    /// The bundle directory, or a run directory (`run.json`, `bundle/`, `source/`, as
    /// `vouch run` writes it).
    pub bundle: PathBuf,
    /// Your own copy of the source statements CSV (the trusted input). A run directory's own
    /// copy under `source/` is used when this is not given (its sha256 must match run.json's).
    #[arg(long, short)]
    pub source: Option<PathBuf>,
    /// The file name the agent was given the source under, when your copy is named otherwise
    /// (the manifest's input_filename and the memo's citations are judged against it).
    #[arg(long, value_name = "NAME")]
    pub source_name: Option<String>,
    /// A spec file to use instead of the embedded financial-analyst contract.
    #[arg(long)]
    pub spec: Option<PathBuf>,
    /// Report format.
    #[arg(long, short, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// Write the report to this file instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also show info findings (human and github formats) and every skip reason.
    #[arg(long, short)]
    pub verbose: bool,
    /// List at most N findings in the human report (findings that repeat are listed once with
    /// a count); the rest are counted.
    #[arg(long, value_name = "N")]
    pub max_findings: Option<usize>,
    /// Re-run the bundle's script with python3 under bubblewrap (no network, read-only system,
    /// limits) on a copy of the source, and require it to reproduce the bundle's tables and
    /// manifest (exit 2 when bubblewrap or python3 is missing; never runs unsandboxed).
    #[arg(long)]
    pub reexecute: bool,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum Format {
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
    /// One self-contained HTML page (no script, no network): the verdict, the findings, the
    /// chart with vouch's reading drawn over it, the memo and the tables with failures marked.
    Html,
    /// For a model to act on: one line per failing finding (file, location, check, printed and
    /// recomputed, the rule's fix); the repair prompt of `vouch run --repair`.
    Agent,
}

pub fn verify(args: VerifyArgs) -> Result<u8> {
    vouch::verify::init_pool(Some(vouch::verify::SINGLE_BUNDLE_THREADS));
    let spec = super::load_spec(args.spec.as_ref())?;
    let target = vouch::target::verify_target(
        &args.bundle,
        args.source.as_deref(),
        args.source_name.as_deref(),
        &spec,
    )
    .map_err(anyhow::Error::msg)?;
    let bundle = Bundle::load_dir(&target.bundle_dir, &spec)?;
    if args.reexecute {
        vouch::reexecute::available()?;
    }
    // The script's parse starts on the pool while the source is read.
    let (stmts, mut report) =
        vouch::verify::verify_loading(&spec, &bundle, || target.read_source(&spec))?;
    if args.reexecute {
        let limits = vouch::reexecute::jail::Limits::default();
        let found = vouch::reexecute::reexecute(&spec, target.source_path(), &bundle, &limits)?;
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
        Format::Html => vouch::report::html::verify::render(&spec, &stmts, &bundle, &report),
        Format::Agent => vouch::report::agent::render(&report),
    };
    emit(&text, args.output.as_ref())?;
    Ok(report.verdict().exit_code() as u8)
}
