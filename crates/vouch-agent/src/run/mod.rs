//! `vouch run`: drive a hosted-sandbox agent run end to end and verify what it produced.
//!
//! One trial is: upload the source → create a container holding it → the responses loop (another
//! turn only while an answer has shell activity but no assistant message, up to `max_turns`) →
//! list the container's files and download the six artifacts (matched by path suffix) → write the
//! run directory (`docs/runs.md`) → verify. The container and the uploaded file are deleted
//! whatever happens — success, error, rejection, Ctrl-C — unless `keep`; a failed deletion is
//! reported and recorded in `run.json`. Trials run concurrently, at most `concurrency` at once.

mod agents_api;
pub mod client;
mod local;
pub mod progress;
pub mod record;
mod repair;
mod stage_dir;
pub mod wire;

use client::{ApiError, Client};
use progress::{Progress, Stage, TrialLine};
use record::{ArtifactRecord, Cleanup, Ids, RunRecord, RunStatus, SourceRef};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;
use tokio::sync::{watch, Semaphore};
use vouch_core::bundle::{sha256_hex, Bundle};
use vouch_core::names::upload_base_name;
use vouch_core::report::Report;
use vouch_core::source::Statements;
use vouch_core::spec::Spec;
use wire::{ContainerCreate, ContainerFile, NetworkPolicy, Usage};

/// What every trial of one `vouch run` shares.
pub struct Plan {
    pub spec: Spec,
    pub stmts: Statements,
    pub source_name: String,
    pub source_bytes: Vec<u8>,
    pub prompt: String,
    pub model: String,
    pub max_turns: u32,
    pub trials: u32,
    pub concurrency: usize,
    pub label: String,
    pub out: PathBuf,
    pub keep: bool,
    pub memory_limit: String,
    pub environment: Environment,
    /// Repair rounds at most after a rejection (`--repair N`; 0: none).
    pub repair: u32,
}

/// How the agent's shell gets its sandbox (the tutorial's ways).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Environment {
    /// vouch creates the container (`POST /containers` with the upload) and the shell tool names
    /// it (`container_reference`): the tutorial's own flow.
    Reference,
    /// The shell tool asks the API to make the container (`container_auto` with the upload's
    /// id); vouch learns it from the first shell call, refers to it from then on, and deletes it.
    Auto,
    /// The shell tool's `local` environment: the model's shell calls come back to vouch, which
    /// runs them under bubblewrap (the `--reexecute` jail) in a private `/mnt/data` holding only
    /// the source, answers with their outputs, and collects the six files from there.
    Local,
    /// The beta Agents API: a session with an `openai_hosted` environment holding the upload;
    /// vouch follows its event stream and downloads the artifacts its turn published.
    AgentsApi,
}

impl Environment {
    pub fn as_str(self) -> &'static str {
        match self {
            Environment::Reference => "reference",
            Environment::Auto => "auto",
            Environment::Local => "local",
            Environment::AgentsApi => "agents-api",
        }
    }
}

/// How one trial ended.
pub struct TrialOutcome {
    pub record: RunRecord,
    pub dir: PathBuf,
    pub report: Option<Report>,
}

impl TrialOutcome {
    /// Accepted: the run finished and the bundle passed verification.
    pub fn accepted(&self) -> bool {
        self.record.verdict.as_deref() == Some("accept")
    }
}

/// Set when the run is interrupted (Ctrl-C); trials stop their work and clean up.
#[derive(Clone)]
pub struct Interrupt(watch::Receiver<bool>);

impl Interrupt {
    /// A trigger and its receiver.
    pub fn new() -> (watch::Sender<bool>, Interrupt) {
        let (tx, rx) = watch::channel(false);
        (tx, Interrupt(rx))
    }

    async fn wait(&mut self) {
        while !*self.0.borrow() {
            if self.0.changed().await.is_err() {
                // The trigger is gone: never interrupted.
                std::future::pending::<()>().await;
            }
        }
    }
}

/// Run every trial, at most `plan.concurrency` at once.
pub async fn run_trials(
    plan: Arc<Plan>,
    client: Client,
    progress: Arc<Progress>,
    interrupt: Interrupt,
) -> Vec<TrialOutcome> {
    let permits = Arc::new(Semaphore::new(plan.concurrency.max(1)));
    let mut tasks = tokio::task::JoinSet::new();
    for index in 0..plan.trials {
        let (plan, client, progress, permits) = (
            plan.clone(),
            client.with_log(),
            progress.clone(),
            permits.clone(),
        );
        let mut interrupt = interrupt.clone();
        let line = progress.trial(index);
        tasks.spawn(async move {
            let permit = tokio::select! {
                p = permits.acquire_owned() => p.ok(),
                _ = interrupt.wait() => None,
            };
            let outcome = trial(&plan, &client, index, &line, interrupt, permit.is_none()).await;
            drop(permit);
            (index, outcome)
        });
    }
    let mut outcomes = Vec::new();
    while let Some(done) = tasks.join_next().await {
        if let Ok(done) = done {
            outcomes.push(done);
        }
    }
    outcomes.sort_by_key(|(i, _)| *i);
    outcomes.into_iter().map(|(_, o)| o).collect()
}

/// What the work of a trial accumulates, kept when the work is cut short.
#[derive(Default)]
pub(crate) struct Progressed {
    ids: Ids,
    turns: u32,
    usage: Usage,
    status: Option<RunStatus>,
    error: Option<String>,
    artifacts: Vec<ArtifactRecord>,
    downloaded: bool,
    /// A `container_auto` request was sent, so the API may have made a container vouch has not
    /// learned the id of.
    auto_requested: bool,
    /// A session was requested (`agents-api`), so one may exist that vouch has not learned.
    session_requested: bool,
    /// Where the agent's work can go on (`--repair`): set by the first pass once it downloaded.
    resume: Option<repair::Resume>,
    /// Every verification round of `--repair` (the first pass included).
    rounds: Vec<record::Round>,
    /// The agent changed the source in its sandbox: the run is rejected whatever the bundle says.
    source_changed: bool,
    /// The container's files as last listed for a download (reference, auto).
    container_files: Vec<ContainerFile>,
}

async fn trial(
    plan: &Plan,
    api: &Client,
    index: u32,
    line: &TrialLine,
    mut interrupt: Interrupt,
    interrupted_before_start: bool,
) -> TrialOutcome {
    let started = SystemTime::now();
    let clock = std::time::Instant::now();
    let run_id = record::new_run_id(started);
    let dir = plan.out.join(&run_id);
    let mut done = Progressed::default();
    // A trial interrupted before it started leaves no run directory: there is nothing to audit.
    let prepared = if interrupted_before_start {
        Err("interrupted before the trial started".to_string())
    } else {
        prepare_dir(&dir, &plan.source_name, &plan.source_bytes)
    };
    if let Err(e) = &prepared {
        done.status = Some(RunStatus::Error);
        done.error = Some(e.clone());
    } else {
        let work = work(plan, api, &dir, line, &mut done);
        tokio::select! {
            result = work => {
                if let Err(e) = result {
                    done.status = Some(RunStatus::Error);
                    done.error = Some(e);
                }
            }
            _ = interrupt.wait() => {
                done.status = Some(RunStatus::Error);
                done.error = Some("interrupted (Ctrl-C)".into());
            }
        }
    }
    if plan.repair > 0 && done.downloaded && done.resume.is_some() {
        let repairing = repair::rounds(plan, api, &dir, line, &mut done, clock);
        tokio::select! {
            () = repairing => {}
            _ = interrupt.wait() => {
                done.status = Some(RunStatus::Error);
                done.error = Some("interrupted (Ctrl-C) during a repair round".into());
            }
        }
    }
    // The local sandbox's /mnt/data goes now, whatever happened.
    done.resume = None;
    line.stage(Stage::CleaningUp);
    let mut cleanup = clean_up(api, &done.ids, plan.keep).await;
    if plan.environment == Environment::AgentsApi && !plan.keep && done.ids.session_id.is_none() {
        // A session was asked for but its stream never named it: it cannot be deleted.
        cleanup.session_deleted = Some(!done.session_requested);
        if done.session_requested {
            cleanup.errors.push(
                "the session the API made was never named by its event stream, so vouch cannot \
                 delete it"
                    .into(),
            );
        }
    }
    if done.auto_requested && done.ids.container_id.is_none() && !plan.keep {
        // No shell call named the container the API made (if it made one): it cannot be deleted.
        cleanup.container_deleted = false;
        cleanup.errors.push(
            "the container the API made for `container_auto` was never named by a shell call, so              vouch cannot delete it; it expires after 20 minutes without activity"
                .into(),
        );
    }
    // Verification needs only local files; it runs after the clean-up so that nothing delays it.
    let mut report = None;
    let mut verdict = None;
    if done.downloaded && prepared.is_ok() {
        line.stage(Stage::Verifying);
        let r = verify_bundle(plan, &dir.join("bundle"));
        // A changed source rejects the run, whatever its bundle says (`--repair`).
        let word = if done.source_changed {
            "reject"
        } else {
            verdict_word(&r)
        };
        verdict = Some(word.to_string());
        report = Some(r);
    }
    let record = RunRecord {
        schema: record::SCHEMA.into(),
        schema_version: record::SCHEMA_VERSION,
        run_id,
        label: plan.label.clone(),
        trial: index,
        model: plan.model.clone(),
        prompt_sha256: sha256_hex(plan.prompt.as_bytes()),
        source: SourceRef {
            file_name: plan.source_name.clone(),
            sha256: sha256_hex(&plan.source_bytes),
        },
        started_at: record::rfc3339(started),
        finished_at: record::rfc3339(SystemTime::now()),
        status: done.status.unwrap_or(RunStatus::Error),
        usage: done.usage,
        turns: done.turns,
        ids: done.ids,
        request_ids: api.request_ids(),
        cleanup,
        error: done.error,
        verdict,
        api_base_url: api.base_url().to_string(),
        environment: plan.environment.as_str().to_string(),
        artifacts: done.artifacts,
        rounds: done.rounds,
    };
    if prepared.is_ok() {
        if let Err(e) = write_record(&dir, &record) {
            line.stage(Stage::Done(format!("error: {e}")));
        }
    }
    line.stage(Stage::Done(summary_word(&record)));
    TrialOutcome {
        record,
        dir,
        report,
    }
}

fn summary_word(r: &RunRecord) -> String {
    match (&r.verdict, r.status) {
        (Some(v), RunStatus::Completed) => v.clone(),
        (Some(v), s) => format!("{v} ({})", s.as_str()),
        (None, s) => s.as_str().to_string(),
    }
}

fn verdict_word(report: &Report) -> &'static str {
    match report.verdict() {
        vouch_core::Verdict::Accept => "accept",
        vouch_core::Verdict::Reject => "reject",
    }
}

/// The run directory with its `source/` copy and an empty `bundle/`.
fn prepare_dir(dir: &Path, source_name: &str, bytes: &[u8]) -> Result<(), String> {
    let make = || -> std::io::Result<()> {
        std::fs::create_dir_all(dir.join("bundle"))?;
        std::fs::create_dir_all(dir.join("source"))?;
        std::fs::write(dir.join("source").join(source_name), bytes)
    };
    make().map_err(|e| format!("cannot prepare the run directory `{}`: {e}", dir.display()))
}

fn write_record(dir: &Path, record: &RunRecord) -> Result<(), String> {
    let mut text = serde_json::to_string_pretty(record).map_err(|e| e.to_string())?;
    text.push('\n');
    std::fs::write(dir.join("run.json"), text)
        .map_err(|e| format!("cannot write `{}`: {e}", dir.join("run.json").display()))
}

fn verify_bundle(plan: &Plan, bundle_dir: &Path) -> Report {
    match Bundle::load_dir(bundle_dir, &plan.spec) {
        Ok(bundle) => vouch_core::verify::verify(&plan.spec, &plan.stmts, &bundle),
        // The directory was made by this run; failing to read it back is a bundle with nothing in it.
        Err(_) => vouch_core::verify::verify(
            &plan.spec,
            &plan.stmts,
            &Bundle::from_files(&bundle_dir.display().to_string(), Vec::new(), &plan.spec),
        ),
    }
}

/// The user message of the first turn.
pub(crate) fn user_message(source_name: &str) -> String {
    format!(
        "The company's annual financial statements were uploaded to /mnt/data (the file name ends \
         with `{source_name}`, possibly after an upload prefix). Follow your instructions and leave \
         the six artifacts in /mnt/data."
    )
}

/// Upload → container → turns → download. Errors are reasons; everything done is in `done`.
async fn work(
    plan: &Plan,
    api: &Client,
    dir: &Path,
    line: &TrialLine,
    done: &mut Progressed,
) -> Result<(), String> {
    match plan.environment {
        Environment::Local => return local::work(plan, api, dir, line, done).await,
        Environment::AgentsApi => return agents_api::work(plan, api, dir, line, done).await,
        Environment::Reference | Environment::Auto => {}
    }
    let fail = |e: ApiError| e.to_string();
    line.stage(Stage::Uploading);
    let file = api
        .upload_file(&plan.source_name, &plan.source_bytes)
        .await
        .map_err(fail)?;
    done.ids.file_id = Some(file.id.clone());

    let container_id = match plan.environment {
        Environment::Reference => {
            line.stage(Stage::CreatingContainer);
            let container = api
                .create_container(&ContainerCreate {
                    name: format!("vouch-{}", random_hex(8)),
                    file_ids: Some(vec![file.id.clone()]),
                    memory_limit: Some(plan.memory_limit.clone()),
                    network_policy: Some(json!(NetworkPolicy::disabled())),
                    expires_after: None,
                    skills: None,
                })
                .await
                .map_err(fail)?;
            done.ids.container_id = Some(container.id.clone());
            Some(container.id)
        }
        Environment::Auto | Environment::Local | Environment::AgentsApi => None,
    };
    let mut shell = Hosted {
        container_id,
        file_id: file.id.clone(),
    };
    converse(plan, api, line, done, &mut shell, Start::Fresh).await?;
    let Some(container_id) = shell.container_id.clone() else {
        return Err("no shell call named the container the API made (`container_auto`), so there is nothing to download".into());
    };
    download_container(plan, api, dir, line, done, &container_id).await?;
    done.resume = Some(repair::Resume::Hosted(shell));
    Ok(())
}

/// List the container's files and download the six artifacts into `bundle/`.
pub(crate) async fn download_container(
    plan: &Plan,
    api: &Client,
    dir: &Path,
    line: &TrialLine,
    done: &mut Progressed,
    container_id: &str,
) -> Result<(), String> {
    line.stage(Stage::Downloading);
    let files = api
        .list_container_files(container_id)
        .await
        .map_err(|e| e.to_string())?;
    let picked = plan
        .spec
        .artifacts
        .all()
        .iter()
        .filter_map(|name| {
            pick_artifact(&files, name)
                .map(|f| ArtifactRecord::listed(name, &f.id, &f.path, f.bytes))
        })
        .collect();
    // Kept for the source check of `--repair`, which needs the same listing.
    done.container_files = files;
    let limit = plan.spec.limits.max_artifact_bytes;
    fetch_artifacts(dir, done, picked, |id| async move {
        api.download_container_file(container_id, &id, limit).await
    })
    .await
}

/// Download each picked artifact with `fetch` (given its id) into `bundle/`, recording it.
pub(crate) async fn fetch_artifacts<F, Fut>(
    dir: &Path,
    done: &mut Progressed,
    picked: Vec<ArtifactRecord>,
    fetch: F,
) -> Result<(), String>
where
    F: Fn(String) -> Fut,
    Fut: std::future::Future<Output = Result<Vec<u8>, ApiError>>,
{
    let bundle_dir = dir.join("bundle");
    for mut rec in picked {
        let got = fetch(rec.container_file_id.clone()).await;
        keep_download(&bundle_dir, &mut rec, got)?;
        done.artifacts.push(rec);
    }
    done.downloaded = true;
    Ok(())
}

/// Write a downloaded artifact into `bundle/` and record its size and hash; one over the size
/// limit is recorded as skipped; any other failure ends the download.
pub(crate) fn keep_download(
    bundle_dir: &Path,
    rec: &mut ArtifactRecord,
    got: Result<Vec<u8>, ApiError>,
) -> Result<(), String> {
    match got {
        Ok(bytes) => {
            rec.bytes = bytes.len() as u64;
            rec.sha256 = Some(sha256_hex(&bytes));
            let path = bundle_dir.join(&rec.name);
            std::fs::write(&path, &bytes)
                .map_err(|e| format!("cannot write `{}`: {e}", path.display()))
        }
        Err(ApiError::TooLarge { limit, .. }) => {
            rec.skipped = Some(format!("over the {limit}-byte limit; not downloaded"));
            Ok(())
        }
        Err(e) => Err(e.to_string()),
    }
}

/// The agent's side of the shell: what the tool says each turn, and what vouch does with a
/// response's shell calls (nothing for a hosted container; run them, for the local environment).
pub(crate) trait ShellSide {
    fn tool(&mut self, plan: &Plan, done: &mut Progressed) -> Value;
    /// Input items to send back with the next turn (the outputs of calls vouch ran).
    async fn after(
        &mut self,
        response: &wire::Response,
        done: &mut Progressed,
    ) -> Result<Vec<Value>, String>;
}

/// A hosted container: named once known (`container_reference`); until then the API is asked to
/// make one holding the upload (`container_auto`), and the first shell call names it.
pub(crate) struct Hosted {
    container_id: Option<String>,
    file_id: String,
}

impl Hosted {
    pub(crate) fn container_id(&self) -> Option<&str> {
        self.container_id.as_deref()
    }
}

impl ShellSide for Hosted {
    fn tool(&mut self, plan: &Plan, done: &mut Progressed) -> Value {
        match &self.container_id {
            Some(cid) => {
                json!({"type": "shell", "environment": {"type": "container_reference", "container_id": cid}})
            }
            None => {
                done.auto_requested = true;
                json!({"type": "shell", "environment": {
                    "type": "container_auto",
                    "file_ids": [self.file_id],
                    "memory_limit": plan.memory_limit,
                    "network_policy": NetworkPolicy::disabled(),
                }})
            }
        }
    }

    async fn after(
        &mut self,
        response: &wire::Response,
        done: &mut Progressed,
    ) -> Result<Vec<Value>, String> {
        if self.container_id.is_none() {
            self.container_id = response.shell_container();
            done.ids.container_id.clone_from(&self.container_id);
        }
        Ok(Vec::new())
    }
}

/// The responses loop: another turn only while an answer has shell activity but no assistant
/// message, up to `max_turns`. Records turns, usage, ids and the status in `done`.
async fn converse(
    plan: &Plan,
    api: &Client,
    line: &TrialLine,
    done: &mut Progressed,
    shell: &mut impl ShellSide,
    start: Start,
) -> Result<(), String> {
    let fail = |e: ApiError| e.to_string();
    // The first pass sends the whole history each turn, as the Agents SDK does; a repair round
    // continues the stored conversation (`previous_response_id`) with only what is new.
    let (mut history, mut previous) = match start {
        Start::Fresh => (
            vec![json!({"role": "user", "content": user_message(&plan.source_name)})],
            None,
        ),
        Start::Continue(message) => (
            vec![json!({"role": "user", "content": message})],
            done.ids.response_ids.last().cloned(),
        ),
    };
    let chained = previous.is_some();
    let turns_before = done.turns;
    let mut status = RunStatus::Incomplete;
    for turn in 1..=plan.max_turns {
        line.stage(Stage::Turn {
            turn,
            max: plan.max_turns,
        });
        let tool = shell.tool(plan, done);
        let mut body = json!({
            "model": plan.model,
            "include": [],
            "input": history,
            "instructions": plan.prompt,
            "tools": [tool],
        });
        match &previous {
            Some(id) => body["previous_response_id"] = json!(id),
            // `tool_choice` on the first turn of the first pass only.
            None if turn == 1 => body["tool_choice"] = json!("required"),
            None => {}
        }
        let response = api.create_response(&body).await.map_err(fail)?;
        done.turns = turns_before + turn;
        done.usage += response.usage();
        done.ids.response_ids.push(response.id.clone());
        let answers = shell.after(&response, done).await?;
        match response.status.as_deref() {
            Some("completed") | None => {}
            Some("incomplete") => {
                status = RunStatus::Incomplete;
                done.error = Some(format!(
                    "response {} is incomplete: {}",
                    response.id,
                    response
                        .incomplete_details
                        .as_ref()
                        .map_or("no details".to_string(), Value::to_string)
                ));
                break;
            }
            Some(other) => {
                status = RunStatus::Failed;
                done.error = Some(format!(
                    "response {} is {other}: {}",
                    response.id,
                    response
                        .error
                        .as_ref()
                        .map_or("no error given".to_string(), Value::to_string)
                ));
                break;
            }
        }
        if response.has_assistant_message() {
            status = RunStatus::Completed;
            break;
        }
        if !response.has_shell_activity() {
            done.error = Some(format!(
                "response {} has neither shell activity nor a message",
                response.id
            ));
            break;
        }
        if turn == plan.max_turns {
            done.error = Some(format!(
                "max turns ({}) reached without a final message",
                plan.max_turns
            ));
        }
        if chained {
            history = answers;
            previous = Some(response.id.clone());
        } else {
            history.extend(response.output.iter().map(wire::replayable));
            history.extend(answers);
        }
    }
    done.status = Some(status);
    Ok(())
}

/// How [`converse`] begins: the first pass, or a repair round with vouch's message.
pub(crate) enum Start {
    Fresh,
    Continue(String),
}

/// The container file that is artifact `name`: its base name (upload prefix stripped) is `name`;
/// `/mnt/data/<name>` itself is preferred, then the shallowest, then the newest.
pub fn pick_artifact<'a>(files: &'a [ContainerFile], name: &str) -> Option<&'a ContainerFile> {
    let exact = format!("/mnt/data/{name}");
    files
        .iter()
        .filter(|f| upload_base_name(&f.path) == name)
        .min_by_key(|f| {
            (
                f.path != exact,
                f.path.matches('/').count(),
                std::cmp::Reverse(f.created_at),
            )
        })
}

/// Delete the session or the container, then the file; a 404 means it is already gone.
async fn clean_up(api: &Client, ids: &Ids, keep: bool) -> Cleanup {
    let mut cleanup = Cleanup {
        kept: keep,
        ..Cleanup::default()
    };
    if keep {
        return cleanup;
    }
    let gone = |r: Result<(), ApiError>, errors: &mut Vec<String>, what: &str| match r {
        Ok(()) => true,
        Err(e) if e.status() == Some(404) => true,
        Err(e) => {
            errors.push(format!("could not delete the {what}: {e}"));
            false
        }
    };
    if let Some(sid) = &ids.session_id {
        let r = agents_api::delete_session(api, sid).await;
        cleanup.session_deleted = Some(gone(r, &mut cleanup.errors, "session"));
    }
    match &ids.container_id {
        Some(cid) => {
            let r = api.delete_container(cid).await;
            cleanup.container_deleted = gone(r, &mut cleanup.errors, "container");
        }
        None => cleanup.container_deleted = true,
    }
    match &ids.file_id {
        Some(fid) => {
            let r = api.delete_file(fid).await;
            cleanup.file_deleted = gone(r, &mut cleanup.errors, "uploaded file");
        }
        None => cleanup.file_deleted = true,
    }
    cleanup
}

/// `n` random lowercase hex digits from the OS.
pub fn random_hex(n: usize) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    random_bytes(n)
        .into_iter()
        .map(|b| HEX[(b & 15) as usize] as char)
        .collect()
}

/// `n` random ASCII letters and digits from the OS.
pub fn random_alnum(n: usize) -> String {
    const ALNUM: &[u8; 62] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    random_bytes(n)
        .into_iter()
        .map(|b| ALNUM[(b as usize) % 62] as char)
        .collect()
}

/// A uniform number in [0, 1).
pub fn random_unit() -> f64 {
    let b = random_bytes(8);
    let n = u64::from_le_bytes(b.try_into().unwrap_or([0; 8])) >> 11;
    n as f64 / (1u64 << 53) as f64
}

fn random_bytes(n: usize) -> Vec<u8> {
    let mut buf = vec![0u8; n];
    if getrandom::getrandom(&mut buf).is_err() {
        // No OS randomness: fall back to the clock, which is enough for ids and jitter.
        let mut x = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0x9e37_79b9);
        for b in &mut buf {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            *b = x as u8;
        }
    }
    buf
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfile(id: &str, path: &str, created_at: i64) -> ContainerFile {
        ContainerFile {
            id: id.into(),
            object: "container.file".into(),
            created_at,
            bytes: 1,
            container_id: "cntr_1".into(),
            path: path.into(),
            source: "assistant".into(),
        }
    }

    #[test]
    fn artifacts_match_by_path_suffix_and_prefer_the_top_of_mnt_data() {
        let files = vec![
            cfile("cfile_1", "/mnt/data/out/calculated_metrics.csv", 5),
            cfile("cfile_2", "/mnt/data/calculated_metrics.csv", 1),
            cfile("cfile_3", "/mnt/data/old_calculated_metrics.csv", 9),
        ];
        assert_eq!(
            pick_artifact(&files, "calculated_metrics.csv").unwrap().id,
            "cfile_2"
        );
    }

    #[test]
    fn an_upload_prefix_does_not_hide_an_artifact() {
        let files = vec![cfile("cfile_1", "/mnt/data/3fa9c0-analysis_run.json", 1)];
        assert_eq!(
            pick_artifact(&files, "analysis_run.json").unwrap().id,
            "cfile_1"
        );
        assert!(pick_artifact(&files, "run.json").is_none());
    }

    #[test]
    fn random_ids_have_the_requested_alphabet() {
        assert!(random_hex(48).bytes().all(|b| b.is_ascii_hexdigit()));
        assert!(random_alnum(22).bytes().all(|b| b.is_ascii_alphanumeric()));
        let u = random_unit();
        assert!((0.0..1.0).contains(&u));
    }
}
