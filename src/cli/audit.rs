//! `vouch audit`: many runs, bundles and archives.

use super::output::{emit, QUIET};
use anyhow::Result;
use clap::ValueEnum;
use std::io::IsTerminal;
use std::path::PathBuf;

pub const HELP: &str = "\
Examples:
  vouch audit runs/
  vouch audit runs/ old-runs.tar.gz --source statements.csv -o results.jsonl
  vouch audit runs/ --format junit -o audit.xml
  vouch audit runs/ --format sarif > audit.sarif
  vouch audit runs/ --format html --summary audit.html   (worst runs' reports in audit-reports/)

Exit status: 0 every run accepted, 1 a run was rejected or could not be verified (they are
listed with their paths), 2 bad usage, unreadable inputs, or nothing found to verify.";

#[derive(clap::Args)]
pub struct AuditArgs {
    /// Directories (searched recursively) and archives holding runs or bundles.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// The source CSV for bare bundles and runs without a source copy.
    #[arg(long, short)]
    pub source: Option<PathBuf>,
    /// Write one row per (run, check) to this file: .parquet, .csv or .jsonl.
    #[arg(long, short, visible_alias = "out", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Summary format (on standard output, or in the --summary file).
    #[arg(long, short, value_enum, default_value_t = SummaryFormat::Human)]
    pub format: SummaryFormat,
    /// Write the summary to this file instead of standard output. With --format html, each
    /// worst run's verify report is written beside it, in NAME-reports/ for NAME.html, and
    /// the page links to them.
    #[arg(long, value_name = "FILE")]
    pub summary: Option<PathBuf>,
    /// Verdict cache directory (default: the user's cache dir, e.g. ~/.cache/vouch/verdicts).
    #[arg(long, conflicts_with = "no_cache")]
    pub cache: Option<PathBuf>,
    /// Do not read or write the verdict cache.
    #[arg(long)]
    pub no_cache: bool,
    /// A spec file to use instead of the embedded contract.
    #[arg(long)]
    pub spec: Option<PathBuf>,
    /// Worker threads (default: one per core).
    #[arg(long, short)]
    pub jobs: Option<usize>,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum SummaryFormat {
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
    /// One self-contained HTML page: accept rate and failing checks per label as charts, the
    /// worst runs linked to their reports (with --summary).
    Html,
}

pub fn audit(args: AuditArgs) -> Result<u8> {
    use vouch::audit::{cache, discover, output::ResultsWriter, runner::Auditor, summary::Summary};
    let spec = std::sync::Arc::new(super::load_spec(args.spec.as_ref())?);
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
    let html = matches!(args.format, SummaryFormat::Html);
    let mut labels = vouch::audit::html::Labels::default();
    let mut write_error: Option<String> = None;
    let mut dedup = vouch::audit::dedup::Dedup::default();
    auditor.run(&found, |r| {
        if let Some(bar) = &progress {
            if r.path.contains('!') {
                bar.inc_length(1);
            }
            bar.inc(1);
        }
        if let vouch::audit::dedup::Seen::Repeat(warning) = dedup.admit(&r) {
            if let Some(w) = warning {
                let line = format!("vouch audit: warning: {w}");
                match &progress {
                    Some(bar) => bar.println(line),
                    None => eprintln!("{line}"),
                }
            }
            return;
        }
        summary.add(&r);
        if ci_format {
            collected.add(&r);
        }
        if html {
            labels.add(&r);
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
    if let Some(w) = dedup.rest() {
        eprintln!("vouch audit: warning: {w}");
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
        SummaryFormat::Html => {
            use vouch::audit::html;
            let reports = match &args.summary {
                Some(page) => html::write_reports(&auditor, &found, &summary.worst_runs(), page)
                    .map_err(anyhow::Error::msg)?,
                None => html::Reports::NotWritten,
            };
            let inputs: Vec<String> = args.paths.iter().map(|p| p.display().to_string()).collect();
            html::render(&summary, &labels, &reports, &inputs)
        }
    };
    emit(&text, args.summary.as_ref())?;
    Ok(if summary.reject == 0 && summary.error == 0 {
        0
    } else {
        1
    })
}
