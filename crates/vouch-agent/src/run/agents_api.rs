//! `vouch run --environment agents-api`: the beta Agents API. vouch uploads the source, creates a
//! session whose `openai_hosted` environment holds it at `/workspace/<name>` (no network), with
//! the prompt as the agent's instructions and the first user message as input, and follows the
//! session's event stream until the session is idle after its turn (or failed). A stream that
//! breaks is not re-sent (that would start a second session): vouch polls the session until it
//! is no longer in progress. The six artifacts are the files the turn published from
//! `/workspace/outputs`, downloaded by base name. The session (cancelled first if still running)
//! and the upload are deleted whatever happens. Wire facts: `docs/openai-wire.md`.

use super::client::{ApiError, Client};
use super::progress::{Stage, TrialLine};
use super::record::{ArtifactRecord, RunStatus};
use super::wire::{SessionArtifact, Usage};
use super::{Plan, Progressed};
use serde_json::{json, Value};
use std::path::Path;
use std::time::{Duration, Instant};
use vouch_core::names::upload_base_name;

/// Where the session's environment holds the source and publishes the artifacts from.
pub const WORKSPACE: &str = "/workspace";
pub const OUTPUTS: &str = "/workspace/outputs";
/// How long vouch polls a session whose stream broke before it gives up on it.
const POLL_FOR: Duration = Duration::from_secs(30 * 60);

/// The user message of the session's turn.
pub(crate) fn user_message(source_name: &str) -> String {
    format!(
        "The company's annual financial statements were uploaded to {WORKSPACE}/{source_name}. \
         Follow your instructions, with {WORKSPACE} in place of /mnt/data for the input, and \
         leave the six artifacts in {OUTPUTS}."
    )
}

/// What the turn's events said.
#[derive(Default)]
struct Followed {
    session_id: Option<String>,
    root_turn: Option<String>,
    /// The root turn's last status (`completed`, `failed`, `cancelled`).
    ended: Option<String>,
    error: Option<String>,
    final_message: bool,
    failed: bool,
    usage: Usage,
}

impl Followed {
    fn read(&mut self, event: &Value) -> bool {
        let kind = event["type"].as_str().unwrap_or("");
        match kind {
            "agent.session.created" => {
                self.session_id = event["session"]["id"].as_str().map(str::to_string);
            }
            "agent.session.turn.created"
                if self.root_turn.is_none() && event["turn"]["subagent_id"].is_null() =>
            {
                self.root_turn = event["turn_id"]
                    .as_str()
                    .or(event["turn"]["id"].as_str())
                    .map(str::to_string);
            }
            "agent.session.turn.completed"
            | "agent.session.turn.failed"
            | "agent.session.turn.cancelled"
                if self.is_root(event) =>
            {
                self.ended = event["turn"]["status"]
                    .as_str()
                    .or(kind.rsplit('.').next())
                    .map(str::to_string);
                self.usage += usage_of(&event["usage"])
                    .or(usage_of(&event["turn"]["usage"]))
                    .unwrap_or_default();
                if let Some(e) = event["turn"]["error"].as_object() {
                    self.error = Some(Value::Object(e.clone()).to_string());
                }
            }
            "agent.session.turn.item.done" if self.is_root(event) => {
                let item = &event["item"];
                if item["type"] == "message"
                    && item["role"] == "assistant"
                    && item["status"] == "completed"
                    && item["phase"] != "commentary"
                {
                    self.final_message = true;
                }
            }
            "agent.session.failed" => {
                self.failed = true;
                self.error = event["session"]["error"]
                    .as_str()
                    .map(str::to_string)
                    .or(Some("the session failed".into()));
                return true;
            }
            "agent.session.idle" if self.ended.is_some() => return true,
            _ => {}
        }
        false
    }

    fn is_root(&self, event: &Value) -> bool {
        self.root_turn.is_some() && event["turn_id"].as_str() == self.root_turn.as_deref()
    }
}

fn usage_of(v: &Value) -> Option<Usage> {
    if v.is_null() {
        return None;
    }
    serde_json::from_value(v.clone()).ok()
}

/// Upload → session → its event stream → artifacts. Errors are reasons; what was done is in
/// `done` (the session's id is recorded as soon as it is known, so it is always deleted).
pub(crate) async fn work(
    plan: &Plan,
    api: &Client,
    dir: &Path,
    line: &TrialLine,
    done: &mut Progressed,
) -> Result<(), String> {
    let fail = |e: ApiError| e.to_string();
    line.stage(Stage::Uploading);
    let file = api
        .upload_file(&plan.source_name, &plan.source_bytes)
        .await
        .map_err(fail)?;
    done.ids.file_id = Some(file.id.clone());
    line.stage(Stage::Turn { turn: 1, max: 1 });
    let body = json!({
        "stream": true,
        "environment": {
            "type": "openai_hosted",
            "files": [{"type": "file_id", "file_id": file.id, "path": format!("{WORKSPACE}/{}", plan.source_name)}],
            "network": {"access": "disabled"},
        },
        "agent": {"model": plan.model, "instructions": plan.prompt},
        "input": user_message(&plan.source_name),
        "stream_options": {"include_obfuscation": false},
    });
    let stream = api.create_session_stream(&body).await.map_err(fail)?;
    done.session_requested = true;
    follow(api, stream, done).await?;
    let sid = done.ids.session_id.clone().unwrap_or_default();
    download(plan, api, dir, line, done, &sid).await?;
    done.resume = Some(super::repair::Resume::Session(sid));
    Ok(())
}

/// Another turn of the session with vouch's `message` (a repair round): subscribe to its events,
/// send the message, follow the turn, download what it published.
pub(crate) async fn next_turn(
    plan: &Plan,
    api: &Client,
    dir: &Path,
    line: &TrialLine,
    done: &mut Progressed,
    sid: &str,
    message: &str,
) -> Result<(), String> {
    let fail = |e: ApiError| e.to_string();
    line.stage(Stage::Turn { turn: 1, max: 1 });
    // Subscribed first, as the SDK's `sessions.stream` does, so no event is missed.
    let stream = api.stream_session_events(sid).await.map_err(fail)?;
    let input = json!([{
        "type": "agent.session.input.message",
        "input": [{"role": "user", "content": [{"type": "input_text", "text": message}]}],
    }]);
    api.post_session_events(sid, &input).await.map_err(fail)?;
    follow(api, stream, done).await?;
    download(plan, api, dir, line, done, sid).await
}

/// Read a turn's events to their end (polling the session when the stream breaks) and record
/// its status, usage and errors in `done`.
async fn follow(
    api: &Client,
    mut stream: super::client::EventStream,
    done: &mut Progressed,
) -> Result<(), String> {
    let mut followed = Followed {
        session_id: done.ids.session_id.clone(),
        ..Followed::default()
    };
    let mut broke = None;
    loop {
        match stream.next().await {
            Ok(Some(event)) => {
                let over = followed.read(&event);
                if done.ids.session_id.is_none() {
                    done.ids.session_id.clone_from(&followed.session_id);
                }
                if over {
                    break;
                }
            }
            Ok(None) => break,
            Err(e) => {
                broke = Some(e);
                break;
            }
        }
    }
    drop(stream);
    done.turns += 1;
    let Some(sid) = done.ids.session_id.clone() else {
        return Err(match broke {
            Some(e) => format!("{e} before the session was named"),
            None => "the session's event stream ended before it named the session".into(),
        });
    };
    if followed.ended.is_none() && !followed.failed {
        // The stream ended early: the session goes on without us; wait until it stops.
        poll_until_stopped(api, &sid, &mut followed).await?;
    }
    done.usage += followed.usage;
    done.status = Some(
        if followed.failed || followed.ended.as_deref() == Some("failed") {
            RunStatus::Failed
        } else if followed.ended.as_deref() == Some("completed") && followed.final_message {
            RunStatus::Completed
        } else {
            RunStatus::Incomplete
        },
    );
    match done.status {
        Some(RunStatus::Failed) => {
            done.error = Some(format!(
                "session {sid} failed: {}",
                followed.error.as_deref().unwrap_or("no error given")
            ))
        }
        Some(RunStatus::Incomplete) => {
            done.error = Some(format!(
                "session {sid}'s turn ended {} without a final message",
                followed.ended.as_deref().unwrap_or("unknown")
            ))
        }
        _ => {}
    }
    Ok(())
}

/// The six artifacts the session published, by base name, into `bundle/` (the newest of a name
/// when several turns published it).
async fn download(
    plan: &Plan,
    api: &Client,
    dir: &Path,
    line: &TrialLine,
    done: &mut Progressed,
    sid: &str,
) -> Result<(), String> {
    line.stage(Stage::Downloading);
    let artifacts = api
        .list_session_artifacts(sid)
        .await
        .map_err(|e| e.to_string())?;
    let picked = plan
        .spec
        .artifacts
        .all()
        .iter()
        .filter_map(|name| {
            pick(&artifacts, name)
                .map(|a| ArtifactRecord::listed(name, &a.id, &a.path, a.size_bytes))
        })
        .collect();
    let limit = plan.spec.limits.max_artifact_bytes;
    super::fetch_artifacts(dir, done, picked, |id| async move {
        api.download_session_artifact(sid, &id, limit).await
    })
    .await
}

/// Poll the session until it is no longer in progress, then read how its turn ended.
async fn poll_until_stopped(
    api: &Client,
    sid: &str,
    followed: &mut Followed,
) -> Result<(), String> {
    let started = Instant::now();
    let mut wait = Duration::from_millis(250);
    loop {
        let session = api.get_session(sid).await.map_err(|e| e.to_string())?;
        match session["status"].as_str() {
            Some("in_progress") if started.elapsed() < POLL_FOR => {
                tokio::time::sleep(wait).await;
                wait = (wait * 2).min(Duration::from_secs(5));
            }
            Some("in_progress") => {
                return Err(format!(
                    "session {sid} was still in progress after {} minutes",
                    POLL_FOR.as_secs() / 60
                ))
            }
            Some("failed") => {
                followed.failed = true;
                followed.error = session["error"].as_str().map(str::to_string);
                return Ok(());
            }
            _ => {
                // Idle (or waiting on an action vouch never gives): the last turn says how.
                let turns = api
                    .get_json(&format!("/agents/sessions/{sid}/turns?order=desc&limit=1"))
                    .await
                    .map_err(|e| e.to_string())?;
                let turn = &turns["data"][0];
                followed.ended = turn["status"].as_str().map(str::to_string);
                followed.usage += usage_of(&turn["usage"]).unwrap_or_default();
                let items = api
                    .get_json(&format!("/agents/sessions/{sid}/items?order=desc&limit=20"))
                    .await
                    .map_err(|e| e.to_string())?;
                followed.final_message = items["data"].as_array().is_some_and(|items| {
                    items.iter().any(|i| {
                        i["type"] == "message"
                            && i["role"] == "assistant"
                            && i["status"] == "completed"
                            && i["phase"] != "commentary"
                            && i["turn_id"] == turn["id"]
                    })
                });
                return Ok(());
            }
        }
    }
}

/// The artifact that is `name`: its base name (upload prefix stripped) is `name`;
/// `/workspace/outputs/<name>` itself is preferred, then the shallowest, then the newest (a later
/// turn republishes a file it changed; of two in the same second, the one listed later, as the
/// list is oldest first).
fn pick<'a>(artifacts: &'a [SessionArtifact], name: &str) -> Option<&'a SessionArtifact> {
    let exact = format!("{OUTPUTS}/{name}");
    artifacts
        .iter()
        .enumerate()
        .filter(|(_, a)| upload_base_name(&a.path) == name)
        .min_by_key(|(i, a)| {
            (
                a.path != exact,
                a.path.matches('/').count(),
                std::cmp::Reverse((a.created_at, *i)),
            )
        })
        .map(|(_, a)| a)
}

/// Delete the session (cancelling a turn still running first); a 404 means it is gone.
pub(crate) async fn delete_session(api: &Client, sid: &str) -> Result<(), ApiError> {
    match api.delete_session(sid).await {
        Err(e) if e.status() == Some(400) || e.status() == Some(409) => {
            // Still running: cancel, wait for it to stop, delete.
            let _ = api
                .post_session_events(sid, &json!([{"type": "agent.session.input.cancel"}]))
                .await;
            let deadline = Instant::now() + Duration::from_secs(30);
            while Instant::now() < deadline {
                match api.get_session(sid).await {
                    Ok(s) if s["status"] == "in_progress" => {
                        tokio::time::sleep(Duration::from_millis(200)).await
                    }
                    _ => break,
                }
            }
            api.delete_session(sid).await
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn art(id: &str, path: &str, created_at: i64) -> SessionArtifact {
        SessionArtifact {
            id: id.into(),
            path: path.into(),
            size_bytes: 1,
            created_at,
            turn_id: None,
        }
    }

    #[test]
    fn artifacts_match_by_base_name_and_prefer_the_top_of_outputs() {
        let all = vec![
            art("a1", "/workspace/outputs/old/calculated_metrics.csv", 9),
            art("a2", "/workspace/outputs/calculated_metrics.csv", 1),
            art("a3", "/workspace/outputs/x-calculated_metrics.csv.bak", 5),
        ];
        assert_eq!(pick(&all, "calculated_metrics.csv").unwrap().id, "a2");
        assert!(pick(&all, "analysis_run.json").is_none());
        // Republished by a later turn in the same second: the later one.
        let again = vec![
            art("b1", "/workspace/outputs/calculated_metrics.csv", 7),
            art("b2", "/workspace/outputs/calculated_metrics.csv", 7),
        ];
        assert_eq!(pick(&again, "calculated_metrics.csv").unwrap().id, "b2");
    }

    #[test]
    fn the_root_turn_ends_the_stream_only_once_the_session_is_idle() {
        let mut f = Followed::default();
        assert!(!f.read(&json!({"type": "agent.session.created", "session": {"id": "sess_1"}})));
        // An idle before the turn is the session settling, not the end.
        assert!(!f.read(&json!({"type": "agent.session.idle", "session": {}})));
        assert!(!f.read(&json!({"type": "agent.session.turn.created", "turn_id": "t1", "turn": {"id": "t1", "subagent_id": null}})));
        assert!(!f.read(&json!({"type": "agent.session.turn.item.done", "turn_id": "t1", "item": {"type": "message", "role": "assistant", "status": "completed", "phase": "final_answer"}})));
        assert!(!f.read(&json!({"type": "agent.session.turn.completed", "turn_id": "t1", "turn": {"status": "completed"}, "usage": {"input_tokens": 3, "output_tokens": 4, "total_tokens": 7}})));
        assert!(f.read(&json!({"type": "agent.session.idle", "session": {}})));
        assert_eq!(f.session_id.as_deref(), Some("sess_1"));
        assert_eq!(f.ended.as_deref(), Some("completed"));
        assert!(f.final_message);
        assert_eq!(f.usage.total_tokens, 7);
    }
}
