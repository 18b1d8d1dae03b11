//! `vouch run --repair N`: after a rejection, vouch hands its failing findings back to the agent
//! in the same sandbox — the container's conversation (`previous_response_id`), the local jail's
//! `/mnt/data`, or the session's next turn — tells it to fix the files and re-run the script,
//! downloads again and verifies again, at most N times. Before each verification it checks that
//! the source in the sandbox is still the one uploaded (where the environment lets vouch read it:
//! a container or the local jail; a session's workspace has no read API): a run whose agent
//! changed the source is rejected, and repairs stop. Every verification is a round in
//! `run.json` (`rounds`: verdict, failing check ids, usage, turns, seconds, source_intact).

use super::client::{ApiError, Client};
use super::local::{self, Local};
use super::progress::{Stage, TrialLine};
use super::record::Round;
use super::stage_dir::ScratchDir;
use super::{converse, verdict_word, verify_bundle, Hosted, Plan, Progressed, Start};
use std::path::Path;
use std::time::Instant;
use vouch_core::bundle::sha256_hex;
use vouch_core::names::upload_base_name;
use vouch_core::report::Report;

/// Where the agent's work can go on after the first pass.
pub(crate) enum Resume {
    /// A hosted container (`reference` or `auto`): its conversation continues.
    Hosted(Hosted),
    /// vouch's local jail: its `/mnt/data` stays until the trial ends.
    Local { shell: Local, scratch: ScratchDir },
    /// An Agents API session: its next turn.
    Session(String),
}

/// Verify, and while the verdict is a rejection and rounds remain, repair and verify again.
/// Errors end the rounds (recorded in `done.error`); the bundle is the last one downloaded.
pub(crate) async fn rounds(
    plan: &Plan,
    api: &Client,
    dir: &Path,
    line: &TrialLine,
    done: &mut Progressed,
    first_pass: Instant,
) {
    let mut started = first_pass;
    let (mut usage, mut turns) = (Default::default(), 0);
    for round in 0..=plan.repair {
        line.stage(Stage::Verifying);
        let intact = source_intact(plan, api, done).await;
        let report = verify_bundle(plan, &dir.join("bundle"));
        let rejected = report.verdict() == vouch_core::Verdict::Reject;
        let verdict = if intact == Some(false) {
            "reject"
        } else {
            verdict_word(&report)
        };
        done.rounds.push(Round {
            round,
            verdict: verdict.to_string(),
            failing: failing_checks(&report),
            usage: done.usage - usage,
            turns: done.turns - turns,
            seconds: (started.elapsed().as_secs_f64() * 10.0).round() / 10.0,
            source_intact: intact,
        });
        if intact == Some(false) {
            done.source_changed = true;
            done.error = Some(format!(
                "the agent changed the source `{}` in its sandbox (found before verification \
                 round {round}); the run is rejected",
                plan.source_name
            ));
            return;
        }
        if !rejected || round == plan.repair {
            return;
        }
        (usage, turns, started) = (done.usage, done.turns, Instant::now());
        let message = prompt(plan, &report);
        if let Err(e) = repair(plan, api, dir, line, done, &message).await {
            done.error = Some(format!("repair round {}: {e}", round + 1));
            return;
        }
    }
}

/// The ids of the checks that failed, each once, in report order.
fn failing_checks(report: &Report) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for f in &report.findings {
        let id = f.id.to_string();
        if f.status == vouch_core::report::Status::Fail && !ids.contains(&id) {
            ids.push(id);
        }
    }
    ids
}

/// What vouch tells the agent: the failing findings (`--format agent`), where to fix them, and
/// that the source is not to be touched.
pub(crate) fn prompt(plan: &Plan, report: &Report) -> String {
    let (input, output) = match plan.environment {
        super::Environment::AgentsApi => (super::agents_api::WORKSPACE, super::agents_api::OUTPUTS),
        _ => ("/mnt/data", "/mnt/data"),
    };
    format!(
        "An independent verifier (vouch) recomputed your artifacts from the source statements and \
         rejected them. Each line below is a defect it proved: the file and where in it, the check, \
         what is wrong (the value printed and the value recomputed), and how to fix it.\n\n{}\n\
         Fix every defect at its cause — in analyze_financials.py where the script produced it — \
         then re-run the script so that all six artifacts in {output} are regenerated. Do not \
         modify the source statements file in {input}: it is checked. Reply with a short summary \
         when you are done.",
        vouch_core::report::agent::render(report)
    )
}

/// One repair round in the sandbox the first pass left, then the download again.
async fn repair(
    plan: &Plan,
    api: &Client,
    dir: &Path,
    line: &TrialLine,
    done: &mut Progressed,
    message: &str,
) -> Result<(), String> {
    let Some(resume) = done.resume.take() else {
        return Err("the sandbox is gone".into());
    };
    match resume {
        Resume::Hosted(mut shell) => {
            let outcome = converse(
                plan,
                api,
                line,
                done,
                &mut shell,
                Start::Continue(message.to_string()),
            )
            .await;
            let container_id = shell.container_id().map(str::to_string);
            done.resume = Some(Resume::Hosted(shell));
            outcome?;
            let container_id = container_id.ok_or("the container is not known")?;
            fresh_bundle(dir, done)?;
            super::download_container(plan, api, dir, line, done, &container_id).await
        }
        Resume::Local { mut shell, scratch } => {
            let outcome = converse(
                plan,
                api,
                line,
                done,
                &mut shell,
                Start::Continue(message.to_string()),
            )
            .await;
            let data_dir = scratch.path().to_path_buf();
            done.resume = Some(Resume::Local { shell, scratch });
            outcome?;
            fresh_bundle(dir, done)?;
            local::collect(plan, dir, line, done, &data_dir)
        }
        Resume::Session(sid) => {
            done.resume = Some(Resume::Session(sid.clone()));
            fresh_bundle(dir, done)?;
            super::agents_api::next_turn(plan, api, dir, line, done, &sid, message).await
        }
    }
}

/// Empty `bundle/` before a repaired download, so a file the agent removed does not linger.
fn fresh_bundle(dir: &Path, done: &mut Progressed) -> Result<(), String> {
    let bundle = dir.join("bundle");
    let _ = std::fs::remove_dir_all(&bundle);
    std::fs::create_dir_all(&bundle)
        .map_err(|e| format!("cannot empty `{}`: {e}", bundle.display()))?;
    done.artifacts.clear();
    Ok(())
}

/// Whether the sandbox still holds the source as uploaded: `None` when vouch cannot read it
/// there (a session's workspace; an API error).
async fn source_intact(plan: &Plan, api: &Client, done: &Progressed) -> Option<bool> {
    let expected = sha256_hex(&plan.source_bytes);
    match done.resume.as_ref()? {
        Resume::Local { shell, .. } => {
            let path = shell.data_dir().join(&plan.source_name);
            let limit = plan.source_bytes.len() as u64 + 1;
            Some(
                vouch_core::bundle::read_regular(&path, limit)
                    .is_ok_and(|bytes| sha256_hex(&bytes) == expected),
            )
        }
        Resume::Hosted(shell) => {
            let cid = shell.container_id()?;
            // The listing the download just made; the upload (source `user`) by its base name:
            // gone, it was changed.
            let Some(file) = done
                .container_files
                .iter()
                .find(|f| f.source == "user" && upload_base_name(&f.path) == plan.source_name)
            else {
                return Some(false);
            };
            let limit = plan.source_bytes.len() as u64 + 1;
            match api.download_container_file(cid, &file.id, limit).await {
                Ok(bytes) => Some(sha256_hex(&bytes) == expected),
                Err(ApiError::TooLarge { .. }) => Some(false),
                Err(_) => None,
            }
        }
        Resume::Session(_) => None,
    }
}
