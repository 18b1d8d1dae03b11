//! The `run` and `emulate` subcommands of the binary: argument definitions, the runtime, Ctrl-C
//! handling, and the printed summary. The work itself is in `vouch::run` and `vouch::emulator`.

use anyhow::{bail, Context as _, Result};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use vouch::emulator::agent::Playbook;
use vouch::emulator::fault::Fault;
use vouch::emulator::{Config, Emulator};
use vouch::report::human;
use vouch::run::client::{Client, ClientConfig};
use vouch::run::progress::Progress;
use vouch::run::{Interrupt, Plan};
use vouch::source::Statements;

#[derive(Clone, Copy, clap::ValueEnum)]
enum EnvironmentArg {
    /// vouch creates the container; the shell tool's `container_reference` names it.
    Reference,
    /// The shell tool's `container_auto`: the API makes the container.
    Auto,
    /// The shell tool's `local` environment: vouch runs the model's shell calls under
    /// bubblewrap in a private /mnt/data.
    Local,
    /// The beta Agents API: a session with an openai_hosted environment holding the upload;
    /// vouch follows its event stream and downloads the artifacts it published.
    AgentsApi,
}

/// The model the Agents SDK uses when none is configured.
const DEFAULT_MODEL: &str = "gpt-5.6-luna";

#[derive(clap::Args)]
pub struct RunArgs {
    /// Your own copy of the source statements CSV: uploaded for the agent, and the trusted input
    /// of the verification.
    #[arg(long, short)]
    source: PathBuf,
    /// The agent's instructions (default: the embedded financial-analyst prompt).
    #[arg(long)]
    prompt: Option<PathBuf>,
    /// The model name sent to the API (default: OPENAI_DEFAULT_MODEL, else the Agents SDK's).
    #[arg(long)]
    model: Option<String>,
    /// Model calls allowed per trial; another turn is taken only while an answer has shell
    /// activity but no assistant message.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=100))]
    max_turns: u32,
    /// How many times to repeat the run.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    trials: u32,
    /// How many trials run at once.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=64))]
    concurrency: u32,
    /// What these trials are compared as (e.g. a prompt version); recorded in run.json.
    #[arg(long, default_value = "default")]
    label: String,
    /// The runs root: each trial writes `<out-dir>/<run id>/` (run.json, bundle/, source/).
    #[arg(
        long = "out-dir",
        visible_alias = "out",
        value_name = "DIR",
        default_value = "runs"
    )]
    out: PathBuf,
    /// Keep the container and the uploaded file (for debugging); recorded in run.json.
    #[arg(long)]
    keep: bool,
    /// After a rejection, send the failing findings back to the agent in the same sandbox, let
    /// it fix the files and re-run its script, then download and verify again: at most N
    /// rounds. Each verification is recorded in run.json (`rounds`); a run whose agent changed
    /// the source in its sandbox is rejected.
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=20))]
    repair: u32,
    /// The container's memory limit.
    #[arg(long, default_value = "4g", value_parser = ["1g", "4g", "16g", "64g"])]
    memory_limit: String,
    /// How the agent's shell gets its sandbox: `reference` (vouch creates the container and
    /// the shell tool names it, as the tutorial does), `auto` (the shell tool's
    /// `container_auto`: the API makes the container; vouch learns it from the first shell call
    /// and deletes it) or `local` (the model's shell calls come back to vouch, which runs them
    /// under bubblewrap in a private /mnt/data holding only the source: no network, limits, a
    /// cleared environment). Recorded in run.json.
    #[arg(long, value_enum, default_value_t = EnvironmentArg::Reference)]
    environment: EnvironmentArg,
    /// A spec file to use instead of the embedded financial-analyst contract.
    #[arg(long)]
    spec: Option<PathBuf>,
    /// Seconds one HTTP attempt may take (a hosted-shell turn can take minutes).
    #[arg(long, default_value_t = 600)]
    timeout: u64,
    /// Seconds to establish a connection.
    #[arg(long, default_value_t = 5)]
    connect_timeout: u64,
    /// Retries per call after the first attempt (connection errors, 408/409/429/5xx).
    #[arg(long, default_value_t = 2)]
    max_retries: u32,
    /// Run against an in-process emulator instead of OPENAI_BASE_URL (an offline demo; needs
    /// bubblewrap).
    #[arg(long)]
    emulator: bool,
    /// With --emulator: the agent's playbook (an embedded name or a TOML file).
    #[arg(long, requires = "emulator", default_value = "northstar")]
    playbook: String,
    /// With --emulator: inject a fault (see `vouch emulate --help`); repeatable.
    #[arg(long, requires = "emulator")]
    fault: Vec<String>,
    /// Also show info findings in the reports.
    #[arg(long, short)]
    verbose: bool,
}

#[derive(clap::Args)]
pub struct EmulateArgs {
    /// Address to listen on (port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:8089")]
    addr: String,
    /// The agent's playbook: an embedded name (northstar, two-turns, edited-number, skipped-file,
    /// no-message, repair) or a TOML file.
    #[arg(long, default_value = "northstar")]
    playbook: String,
    /// Inject a fault: KIND[@ROUTE][:WHEN]. KIND: 429, 500, slow, drop, cut, incomplete,
    /// delete-fails. ROUTE: files, containers, container-files, responses, sessions, delete, all. WHEN:
    /// first (first attempt of each request), always, once. Repeatable; a request can also
    /// carry them in an `x-vouch-fault` header.
    #[arg(long)]
    fault: Vec<String>,
    /// Delay of the `slow` fault, in milliseconds.
    #[arg(long, default_value_t = 5000)]
    slow_ms: u64,
    /// Delay a 429 asks for (`retry-after-ms`), in milliseconds.
    #[arg(long, default_value_t = 200)]
    retry_after_ms: u64,
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

fn emulator_config(playbook: &str, faults: &[String]) -> Result<Config> {
    let mut config = Config::new(Playbook::load(playbook)?);
    config.faults = faults
        .iter()
        .map(|f| Fault::parse(f))
        .collect::<Result<_, _>>()?;
    Ok(config)
}

pub fn emulate(args: EmulateArgs) -> Result<u8> {
    let mut config = emulator_config(&args.playbook, &args.fault)?;
    config.slow = Duration::from_millis(args.slow_ms);
    config.retry_after = Duration::from_millis(args.retry_after_ms);
    let faults: Vec<String> = config.faults.iter().map(Fault::to_string).collect();
    runtime()?.block_on(async move {
        let emulator = Emulator::new(config)?;
        if !emulator.has_sandbox() {
            eprintln!("vouch: warning: bubblewrap (`bwrap`) is not installed: /responses will refuse to run commands (install it: apt-get install -y bubblewrap)");
        }
        let running = emulator.start(&args.addr).await?;
        eprintln!(
            "vouch emulator listening on {} (playbook {}{})",
            running.base_url(),
            args.playbook,
            if faults.is_empty() {
                String::new()
            } else {
                format!(", faults {}", faults.join(" "))
            }
        );
        eprintln!(
            "  export OPENAI_BASE_URL={} OPENAI_API_KEY=emulator",
            running.base_url()
        );
        let _ = tokio::signal::ctrl_c().await;
        let (files, containers) = running.emulator.counts();
        let sessions = running.emulator.session_count();
        eprintln!(
            "vouch emulator stopping: {files} file(s), {containers} container(s) and {sessions} session(s) held"
        );
        running.stop().await;
        Ok(0)
    })
}

pub fn run(args: RunArgs) -> Result<u8> {
    let spec = crate::cli::load_spec(args.spec.as_ref())?;
    let stmts = Statements::read_path(&args.source, &spec)?;
    let source_bytes = std::fs::read(&args.source)
        .with_context(|| format!("cannot read `{}`", args.source.display()))?;
    let source_name = args
        .source
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .context("the source path has no file name")?;
    let prompt = match &args.prompt {
        Some(p) => std::fs::read_to_string(p)
            .with_context(|| format!("cannot read the prompt `{}`", p.display()))?,
        None => vouch::spec::DEFAULT_PROMPT.to_string(),
    };
    let model = args
        .model
        .clone()
        .or_else(|| {
            std::env::var("OPENAI_DEFAULT_MODEL")
                .ok()
                .filter(|m| !m.is_empty())
        })
        .unwrap_or_else(|| DEFAULT_MODEL.to_string());
    let emulator_config = if args.emulator {
        Some(emulator_config(&args.playbook, &args.fault)?)
    } else {
        None
    };
    let plan = Arc::new(Plan {
        spec,
        stmts,
        source_name,
        source_bytes,
        prompt,
        model,
        max_turns: args.max_turns,
        trials: args.trials,
        concurrency: args.concurrency as usize,
        label: args.label.clone(),
        out: args.out.clone(),
        keep: args.keep,
        memory_limit: args.memory_limit.clone(),
        environment: match args.environment {
            EnvironmentArg::Reference => vouch::run::Environment::Reference,
            EnvironmentArg::Auto => vouch::run::Environment::Auto,
            EnvironmentArg::Local => vouch::run::Environment::Local,
            EnvironmentArg::AgentsApi => vouch::run::Environment::AgentsApi,
        },
        repair: args.repair,
    });
    let color = crate::cli::output::color_for(std::io::stdout().is_terminal());
    let draw = std::io::stderr().is_terminal();
    runtime()?.block_on(async move {
        let running = match emulator_config {
            Some(config) => {
                let emulator = Emulator::new(config)?;
                if !emulator.has_sandbox() {
                    bail!("--emulator needs bubblewrap (`bwrap`) to run the agent's commands, and it is not installed (apt-get install -y bubblewrap)");
                }
                Some(emulator.start("127.0.0.1:0").await?)
            }
            None => None,
        };
        let mut config = match &running {
            Some(r) => ClientConfig::new(
                r.base_url(),
                std::env::var("OPENAI_API_KEY")
                    .ok()
                    .filter(|k| !k.is_empty())
                    .unwrap_or_else(|| "emulator".into()),
            ),
            None => ClientConfig::from_env()?,
        };
        config.request_timeout = Duration::from_secs(args.timeout.max(1));
        config.connect_timeout = Duration::from_secs(args.connect_timeout.max(1));
        config.max_retries = args.max_retries;
        let client = Client::new(config)?;

        let progress = Arc::new(Progress::new(draw));
        let (trigger, interrupt) = Interrupt::new();
        let notices = progress.clone();
        let watcher = tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                notices.println("vouch: interrupted: cleaning up (Ctrl-C again to exit at once, leaving the container and file behind)");
                let _ = trigger.send(true);
                if tokio::signal::ctrl_c().await.is_ok() {
                    std::process::exit(130);
                }
            }
        });
        let outcomes =
            vouch::run::run_trials(plan.clone(), client, progress.clone(), interrupt).await;
        watcher.abort();
        drop(progress);

        let mut accepted = 0;
        let style = human::Style {
            color,
            verbose: args.verbose,
            ..Default::default()
        };
        for o in &outcomes {
            let r = &o.record;
            if let Some(report) = o.report.as_ref().filter(|_| !o.accepted()) {
                print!("{}", human::render(report, &style));
            }
            let what = match (&r.verdict, &r.error) {
                (Some(v), None) => v.clone(),
                (Some(v), Some(e)) => format!("{v} ({}: {e})", r.status.as_str()),
                (None, Some(e)) => format!("{}: {e}", r.status.as_str()),
                (None, None) => r.status.as_str().to_string(),
            };
            println!(
                "trial {}: {what} — {} turn(s), {} tokens — {}",
                r.trial,
                r.turns,
                r.usage.total_tokens,
                o.dir.display()
            );
            for e in &r.cleanup.errors {
                eprintln!("vouch: clean-up failed for trial {}: {e}", r.trial);
            }
            if r.cleanup.kept {
                eprintln!(
                    "vouch: trial {} kept container {} and file {} (--keep)",
                    r.trial,
                    r.ids.container_id.as_deref().unwrap_or("-"),
                    r.ids.file_id.as_deref().unwrap_or("-")
                );
            }
            if o.accepted() {
                accepted += 1;
            }
        }
        println!(
            "{accepted} of {} trial(s) accepted (label {}, model {})",
            outcomes.len(),
            plan.label,
            plan.model
        );
        if let Some(running) = running {
            let (files, containers) = running.emulator.counts();
            if (files, containers) != (0, 0) && !args.keep {
                eprintln!("vouch: the emulator still holds {files} file(s) and {containers} container(s)");
            }
            running.stop().await;
        }
        // A leak (a failed clean-up) is an error even when the bundle was accepted.
        let leaked = outcomes.iter().any(|o| !o.record.cleanup.errors.is_empty());
        let all_ok =
            accepted == outcomes.len() && outcomes.len() == plan.trials as usize && !leaked;
        Ok(if all_ok { 0 } else { 1 })
    })
}
