//! The Agents API (beta) sessions, `/agents/sessions`, as the official SDK (`openai` 3.57,
//! `resources/beta/agents/sessions/`) drives them: a session with an `openai_hosted` environment
//! is a private directory mounted at `/workspace` (the listed uploads copied to their paths), and
//! each turn of it plays the playbook — from where the previous turn stopped, up to and including
//! the next turn that has a message — running every command for real under bubblewrap. A turn's
//! progress is a stream of events (`agent.session.*`, with unique `event_id`s), sent to the
//! streaming create and to every `GET …/events` subscriber; when a turn completes, every file it
//! created or changed under `/workspace/outputs` is published as an immutable artifact. Every
//! request must carry `OpenAI-Beta: agents=v1`. Wire facts and what is inferred:
//! `docs/openai-wire.md`.
//!
//! Limits: only `openai_hosted` and `none` environments; no app tools (`function` tools are
//! echoed, never called), no subagents, no approvals; the event stream has no resume (neither has
//! the SDK); an artifact is at most 64 MiB.

use super::containers::{parse_json_object, read_no_follow, walk};
use super::files::binary;
use super::page::{paginate, ListQuery};
use super::{agent, now, random_hex, Answer, ApiErr, Emulator, MAX_UPLOAD_BYTES};
use axum::body::{Body, Bytes};
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use base64::Engine;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use tokio::sync::broadcast;

/// Where a hosted session's files live, and where its artifacts are published from.
const WORKSPACE: &str = "/workspace";
const OUTPUTS: &str = "outputs";
/// Playbook turns one session turn plays at most before it ends without a message.
const MAX_STEPS: usize = 64;
/// A subscriber with nothing to send hears a comment this often (the SDK ignores comments).
const KEEPALIVE: Duration = Duration::from_secs(15);
const EVENT_BUFFER: usize = 4096;

pub(super) struct StoredSession {
    /// The `agent.session` object, kept current (status, usage, last_active_at).
    object: Value,
    /// The host directory mounted at `/workspace`; `None` for a `none` environment.
    dir: Option<PathBuf>,
    turns: Vec<Value>,
    items: Vec<Value>,
    artifacts: Vec<StoredArtifact>,
    /// Path under `/workspace/outputs` → the hash of the content last published from it.
    published: HashMap<String, String>,
    /// The next playbook turn a session turn starts from.
    next_step: usize,
    /// The running turn: its id and the task playing it.
    running: Option<(String, tokio::task::AbortHandle)>,
    events: broadcast::Sender<Value>,
    /// The user messages of every turn, in order (a test reads what the agent was told).
    inputs: Vec<String>,
}

struct StoredArtifact {
    object: Value,
    bytes: std::sync::Arc<Vec<u8>>,
}

impl Drop for StoredSession {
    fn drop(&mut self) {
        if let Some((_, task)) = &self.running {
            task.abort();
        }
        if let Some(dir) = &self.dir {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// The beta header every Agents API request carries.
fn beta(headers: &HeaderMap) -> Result<(), ApiErr> {
    let ok = headers
        .get_all("openai-beta")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|v| v.trim() == "agents=v1");
    if ok {
        Ok(())
    } else {
        Err(ApiErr::invalid(
            "OpenAI-Beta",
            "The Agents API is in beta: send the header 'OpenAI-Beta: agents=v1'.",
        ))
    }
}

fn with_session<T>(
    emu: &Emulator,
    id: &str,
    f: impl FnOnce(&mut StoredSession) -> Result<T, ApiErr>,
) -> Result<T, ApiErr> {
    let mut store = emu.store();
    let s = store
        .sessions
        .iter_mut()
        .find(|s| s.object["id"] == id)
        .ok_or_else(|| ApiErr::not_found("agent.session", id))?;
    f(s)
}

/// The text of a turn's input: a string, or user messages of `input_text` parts.
fn input_text(input: &Value, param: &str) -> Result<Option<String>, ApiErr> {
    match input {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s.clone())),
        Value::Array(messages) => {
            let mut text = Vec::new();
            for (i, m) in messages.iter().enumerate() {
                match m.get("content") {
                    Some(Value::String(s)) => text.push(s.clone()),
                    Some(Value::Array(parts)) => {
                        for p in parts {
                            if let Some(t) = p.get("text").and_then(Value::as_str) {
                                text.push(t.to_string());
                            }
                        }
                    }
                    _ => return Err(ApiErr::missing(&format!("{param}[{i}].content"))),
                }
            }
            Ok(Some(text.join("\n")))
        }
        _ => Err(ApiErr::invalid(
            param,
            format!("Invalid '{param}': expected a string or an array of messages."),
        )),
    }
}

/// A destination the SDK's own checks allow: under `/workspace/`, no `.`/`..`/empty parts, not
/// the reserved `outputs` directory itself, `.codex` or `.managed-agents*`.
fn workspace_path(path: &str) -> Option<String> {
    let rel = path.strip_prefix("/workspace/")?;
    let parts: Vec<&str> = rel.split('/').collect();
    let bad = parts
        .iter()
        .any(|p| p.is_empty() || *p == "." || *p == ".." || p.contains('\\') || p.contains('\0'));
    let reserved =
        rel == OUTPUTS || parts[0] == ".codex" || parts[0].starts_with(".managed-agents");
    (!bad && !reserved).then(|| rel.to_string())
}

pub(super) async fn create_session(
    State(emu): State<Emulator>,
    headers: HeaderMap,
    body: Bytes,
) -> Answer {
    beta(&headers)?;
    let body = parse_json_object(&body)?;
    let env = body
        .get("environment")
        .and_then(Value::as_object)
        .ok_or_else(|| ApiErr::missing("environment"))?;
    let agent_in = body.get("agent").cloned().unwrap_or(json!({}));
    let model = match agent_in.get("model") {
        Some(Value::String(m)) if !m.is_empty() => m.clone(),
        _ if body.get("agent_id").is_some() => {
            return Err(ApiErr::invalid(
                "agent_id",
                "The emulator has no stored agents; give 'agent' with a 'model'.",
            ))
        }
        _ => return Err(ApiErr::missing("agent.model")),
    };
    let input = input_text(body.get("input").unwrap_or(&Value::Null), "input")?;
    let stream = body.get("stream").and_then(Value::as_bool) == Some(true);
    if stream && input.is_none() {
        return Err(ApiErr::missing("input"));
    }
    let sid = format!("sess_{}", random_hex(32));
    let env_id = format!("env_{}", random_hex(32));
    let (environment, dir) = match env.get("type").and_then(Value::as_str) {
        Some("none") => (json!({"type": "none"}), None),
        Some("openai_hosted") => {
            let (environment, dir) = hosted_environment(&emu, env, &sid, &env_id)?;
            (environment, Some(dir))
        }
        Some(other) => {
            return Err(ApiErr::invalid(
                "environment.type",
                format!("The emulator supports only 'openai_hosted' and 'none' environments, not '{other}'."),
            ))
        }
        None => return Err(ApiErr::missing("environment.type")),
    };
    let created_at = now();
    let agent_object = json!({
        "id": format!("agent_{}", random_hex(32)),
        "model": model,
        "instructions": agent_in.get("instructions").cloned().unwrap_or(Value::Null),
        "name": agent_in.get("name").cloned().unwrap_or(Value::Null),
        "multi_agent": {"enabled": false, "max_concurrent_subagents": null},
        "reasoning": agent_in.get("reasoning").cloned().unwrap_or(json!({"effort": null, "summary": null})),
        "service_tier": agent_in.get("service_tier").cloned().unwrap_or(json!("auto")),
        "text": {"format": {"type": "text"}, "verbosity": "medium"},
        "tools": agent_in.get("tools").cloned().unwrap_or(json!([])),
        "compaction": {"async": false},
        "experimental": {"time_awareness": false},
    });
    let object = json!({
        "id": sid,
        "object": "agent.session",
        "agent": agent_object,
        "environment": environment,
        "created_at": created_at,
        "last_active_at": created_at,
        "error": null,
        "metadata": body.get("metadata").cloned().filter(|m| !m.is_null()).unwrap_or(json!({})),
        "required_actions": [],
        "status": "idle",
        "usage": null,
        "vault_ids": [],
        "prompt_cache_options": null,
        "review": body.get("review").cloned().unwrap_or(json!("none")),
    });
    let (events, _) = broadcast::channel(EVENT_BUFFER);
    emu.store().sessions.push(StoredSession {
        object,
        dir,
        turns: Vec::new(),
        items: Vec::new(),
        artifacts: Vec::new(),
        published: HashMap::new(),
        next_step: 0,
        running: None,
        events,
        inputs: Vec::new(),
    });
    // A streaming create subscribes before anything happens, so it misses no event.
    let subscribed = stream.then(|| subscribe(&emu, &sid)).transpose()?;
    let mut session = with_session(&emu, &sid, |s| Ok(s.object.clone()))?;
    if input.is_some() {
        // Created to work at once: the session is in progress from the start.
        session["status"] = json!("in_progress");
    }
    emit(
        &emu,
        &sid,
        json!({"type": "agent.session.created", "session": session}),
    );
    if environment_is_hosted(&emu, &sid) {
        for status in ["pending", "ready"] {
            emit(
                &emu,
                &sid,
                json!({"type": format!("agent.session.environment.{status}"), "session_id": sid, "turn_id": null,
                       "environment": {"id": env_id, "type": "openai_hosted", "status": status, "error": null}}),
            );
        }
    }
    if let Some(text) = input {
        start_turn(&emu, &sid, text)?;
    }
    match subscribed {
        Some(rx) => Ok(sse(rx)),
        None => Ok(Json(with_session(&emu, &sid, |s| Ok(s.object.clone()))?).into_response()),
    }
}

fn environment_is_hosted(emu: &Emulator, sid: &str) -> bool {
    with_session(emu, sid, |s| Ok(s.dir.is_some())).unwrap_or(false)
}

/// The session's directory with the listed files copied to their paths, and the environment
/// object the API answers with.
fn hosted_environment(
    emu: &Emulator,
    env: &serde_json::Map<String, Value>,
    sid: &str,
    env_id: &str,
) -> Result<(Value, PathBuf), ApiErr> {
    let mut copies: Vec<(String, std::sync::Arc<Vec<u8>>, Value)> = Vec::new();
    let files = match env.get("files") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a.clone(),
        Some(_) => {
            return Err(ApiErr::invalid(
                "environment.files",
                "Expected an array of files.",
            ))
        }
    };
    for (i, f) in files.iter().enumerate() {
        let at = format!("environment.files[{i}]");
        let path = f
            .get("path")
            .and_then(Value::as_str)
            .ok_or_else(|| ApiErr::missing(&format!("{at}.path")))?;
        let rel = workspace_path(path).ok_or_else(|| {
            ApiErr::invalid(
                &format!("{at}.path"),
                format!("Invalid path '{path}': expected an absolute path inside /workspace (not /workspace/outputs)."),
            )
        })?;
        let id = format!("envf_{}", random_hex(24));
        match f.get("type").and_then(Value::as_str) {
            Some("file_id") => {
                let fid = f
                    .get("file_id")
                    .and_then(Value::as_str)
                    .ok_or_else(|| ApiErr::missing(&format!("{at}.file_id")))?;
                let bytes = emu
                    .store()
                    .files
                    .iter()
                    .find(|s| s.object.id == fid)
                    .map(|s| s.bytes.clone())
                    .ok_or_else(|| {
                        ApiErr::invalid(
                            &format!("{at}.file_id"),
                            format!("No such File object: {fid}"),
                        )
                    })?;
                let shown = json!({"type": "file_id", "id": id, "file_id": fid, "path": path, "size_bytes": bytes.len()});
                copies.push((rel, bytes, shown));
            }
            Some("inline") => {
                let data = f
                    .get("data")
                    .and_then(Value::as_str)
                    .ok_or_else(|| ApiErr::missing(&format!("{at}.data")))?;
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(data)
                    .map_err(|e| {
                        ApiErr::invalid(&format!("{at}.data"), format!("Invalid base64: {e}"))
                    })?;
                if bytes.len() > MAX_UPLOAD_BYTES {
                    return Err(ApiErr::invalid(
                        &format!("{at}.data"),
                        "The file is over the emulator's 64 MiB limit.",
                    ));
                }
                let shown =
                    json!({"type": "inline", "id": id, "path": path, "size_bytes": bytes.len()});
                copies.push((rel, std::sync::Arc::new(bytes), shown));
            }
            _ => {
                return Err(ApiErr::invalid(
                    &format!("{at}.type"),
                    "Expected 'file_id' or 'inline'.",
                ))
            }
        }
    }
    let network = match env.get("network") {
        None | Some(Value::Null) => json!({"access": "disabled", "allowed_domains": []}),
        Some(n) => match n.get("access").and_then(Value::as_str) {
            Some(a @ ("enabled" | "disabled" | "restricted")) => {
                json!({"access": a, "allowed_domains": n.get("allowed_domains").cloned().unwrap_or(json!([]))})
            }
            _ => return Err(ApiErr::missing("environment.network.access")),
        },
    };
    let dir = emu.shared.root.join(sid);
    let make = || -> std::io::Result<()> {
        std::fs::create_dir_all(dir.join(OUTPUTS))?;
        for (rel, bytes, _) in &copies {
            let target = dir.join(rel);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(target, bytes.as_slice())?;
        }
        Ok(())
    };
    if let Err(e) = make() {
        let _ = std::fs::remove_dir_all(&dir);
        return Err(ApiErr::server(format!(
            "cannot prepare the session's workspace: {e}"
        )));
    }
    let environment = json!({
        "type": "openai_hosted",
        "id": env_id,
        "container_size": env.get("container_size").cloned().unwrap_or(json!("medium")),
        "desktop": {"enabled": false},
        "capability_directories": [],
        "network": network,
        "packages": {"npm": [], "python": [], "system": []},
        "plugins": [],
        "skills": [],
        "files": copies.into_iter().map(|(_, _, shown)| shown).collect::<Vec<_>>(),
    });
    Ok((environment, dir))
}

/// Send an event to every subscriber of the session (numbered with a fresh `event_id`).
fn emit(emu: &Emulator, sid: &str, mut event: Value) {
    event["event_id"] = json!(format!("event_{}", random_hex(32)));
    let _ = with_session(emu, sid, |s| {
        let _ = s.events.send(event);
        Ok(())
    });
}

fn subscribe(emu: &Emulator, sid: &str) -> Result<broadcast::Receiver<Value>, ApiErr> {
    with_session(emu, sid, |s| Ok(s.events.subscribe()))
}

/// Server-sent events from `rx`: `data: <json>` frames (the SDK dispatches on the JSON's own
/// `type`; the `event:` line is for other readers). The stream ends after the session is idle
/// again once a turn it saw has ended, or has failed, or is gone (a streaming create subscribes
/// before its turn starts, so it always sees it). A quiet subscription hears a comment now and
/// then.
fn sse(rx: broadcast::Receiver<Value>) -> Response {
    struct State {
        rx: broadcast::Receiver<Value>,
        turn_ended: bool,
        done: bool,
    }
    let state = State {
        rx,
        turn_ended: false,
        done: false,
    };
    let stream = futures_util::stream::unfold(state, |mut st| async move {
        if st.done {
            return None;
        }
        let frame = match tokio::time::timeout(KEEPALIVE, st.rx.recv()).await {
            Err(_) => ": keepalive\n\n".to_string(),
            Ok(Err(broadcast::error::RecvError::Closed)) => return None,
            Ok(Err(broadcast::error::RecvError::Lagged(n))) => {
                format!(": {n} event(s) dropped: the subscriber fell behind\n\n")
            }
            Ok(Ok(event)) => {
                let kind = event["type"].as_str().unwrap_or("").to_string();
                if matches!(
                    kind.as_str(),
                    "agent.session.turn.completed"
                        | "agent.session.turn.failed"
                        | "agent.session.turn.cancelled"
                ) {
                    st.turn_ended = true;
                }
                if (kind == "agent.session.idle" && st.turn_ended) || kind == "agent.session.failed"
                {
                    st.done = true;
                }
                format!("event: {kind}\ndata: {event}\n\n")
            }
        };
        Some((Ok::<Bytes, std::io::Error>(Bytes::from(frame)), st))
    });
    (
        [
            (header::CONTENT_TYPE, "text/event-stream; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Body::from_stream(stream),
    )
        .into_response()
}

/// Start a turn with the user's `text`: the session must be idle.
fn start_turn(emu: &Emulator, sid: &str, text: String) -> Result<String, ApiErr> {
    let turn_id = format!("turn_{}", random_hex(32));
    let turn = with_session(emu, sid, |s| {
        if s.running.is_some() {
            return Err(ApiErr::invalid(
                "events",
                format!("Session {sid} already has a turn in progress; cancel it or wait until the session is idle."),
            )
            .code("session_busy"));
        }
        let now = now();
        let turn = json!({
            "id": turn_id, "object": "agent.session.turn",
            "agent_id": s.object["agent"]["id"], "session_id": sid,
            "created_at": now, "started_at": null, "completed_at": null,
            "status": "queued", "subagent_id": null, "error": null, "usage": null,
            "prompt_cache_options": null,
        });
        s.turns.push(turn.clone());
        s.items.push(json!({
            "id": format!("msg_{}", random_hex(32)), "type": "message", "role": "user",
            "content": [{"type": "input_text", "text": text}], "phase": null,
            "status": "completed", "turn_id": turn_id,
        }));
        s.inputs.push(text.clone());
        s.object["status"] = json!("in_progress");
        s.object["last_active_at"] = json!(now);
        Ok(turn)
    })?;
    emit(
        emu,
        sid,
        json!({"type": "agent.session.turn.created", "session_id": sid, "turn_id": turn_id, "turn": turn}),
    );
    let session = with_session(emu, sid, |s| Ok(s.object.clone()))?;
    emit(
        emu,
        sid,
        json!({"type": "agent.session.in_progress", "session": session}),
    );
    let task = tokio::spawn(play_turn(
        emu.clone(),
        sid.to_string(),
        turn_id.clone(),
        text,
    ));
    with_session(emu, sid, |s| {
        s.running = Some((turn_id.clone(), task.abort_handle()));
        Ok(())
    })?;
    Ok(turn_id)
}

/// Update the turn's object and return it.
fn set_turn(emu: &Emulator, sid: &str, turn_id: &str, f: impl FnOnce(&mut Value)) -> Value {
    with_session(emu, sid, |s| {
        let t = s
            .turns
            .iter_mut()
            .find(|t| t["id"] == turn_id)
            .ok_or_else(|| ApiErr::not_found("agent.session.turn", turn_id))?;
        f(t);
        Ok(t.clone())
    })
    .unwrap_or(Value::Null)
}

/// The turn's work: the playbook's turns from where the session stopped, each command run in
/// the workspace, until one ends with a message; then the artifacts, the usage, idle.
async fn play_turn(emu: Emulator, sid: String, turn_id: String, text: String) {
    let started = now();
    let turn = set_turn(&emu, &sid, &turn_id, |t| {
        t["status"] = json!("in_progress");
        t["started_at"] = json!(started);
    });
    emit(
        &emu,
        &sid,
        json!({"type": "agent.session.turn.in_progress", "session_id": sid, "turn_id": turn_id, "turn": turn}),
    );
    // The session's first turn plays the playbook; each later one is a repair prompt
    // (`vouch run --repair`) and plays the next `[[repair]]` entry.
    let (dir, step, earlier) = with_session(&emu, &sid, |s| {
        Ok((s.dir.clone(), s.next_step, s.turns.len().saturating_sub(1)))
    })
    .unwrap_or((None, 0, 0));
    let repair = earlier.checked_sub(1).map(|k| agent::REPAIR_TURNS + k);
    if repair.is_some() {
        emu.store().repair_prompts.push(text.clone());
    }
    let mut output_index = 0usize;
    let mut out_chars = 0usize;
    let mut failure: Option<String> = None;
    let mut message: Option<String> = None;
    let playbook = &emu.shared.config.playbook;
    let mut steps = 0usize;
    match &dir {
        None => message = Some("I need a hosted environment with a shell to do this work.".into()),
        Some(dir) => {
            while steps < MAX_STEPS && message.is_none() && failure.is_none() {
                let turn = playbook.step(repair.unwrap_or(step + steps));
                steps += 1;
                for command in agent::commands_of(&turn, agent::Dirs::AGENTS_API) {
                    let Some(sandbox) = emu.shared.sandbox.as_ref() else {
                        failure = Some(crate::sandbox::SandboxError::Missing.to_string());
                        break;
                    };
                    let item_id = format!("ce_{}", random_hex(32));
                    let mut item = json!({
                        "id": item_id, "type": "command_execution", "command": command.text,
                        "cwd": WORKSPACE, "duration_ms": null, "exit_code": null, "output": null,
                        "status": "in_progress", "turn_id": turn_id,
                    });
                    emit(
                        &emu,
                        &sid,
                        json!({"type": "agent.session.turn.item.added", "session_id": sid, "turn_id": turn_id, "output_index": output_index, "item": item}),
                    );
                    let clock = Instant::now();
                    let ran = sandbox
                        .run_at(dir, WORKSPACE, &command.text, command.timeout)
                        .await;
                    let ran = match ran {
                        Ok(r) => r,
                        Err(e) => {
                            failure = Some(e.to_string());
                            break;
                        }
                    };
                    let (output, exit_code) = agent::combined_output(&ran);
                    out_chars += output.len();
                    emit(
                        &emu,
                        &sid,
                        json!({"type": "agent.output.command_execution_output.delta", "session_id": sid, "turn_id": turn_id, "item_id": item_id, "output_index": output_index, "delta": output}),
                    );
                    item["status"] = json!(if exit_code.is_some() {
                        "completed"
                    } else {
                        "incomplete"
                    });
                    item["exit_code"] = json!(exit_code);
                    item["output"] = json!(output);
                    item["duration_ms"] = json!(clock.elapsed().as_millis() as u64);
                    let _ = with_session(&emu, &sid, |s| {
                        s.items.push(item.clone());
                        Ok(())
                    });
                    emit(
                        &emu,
                        &sid,
                        json!({"type": "agent.session.turn.item.done", "session_id": sid, "turn_id": turn_id, "output_index": output_index, "item": item}),
                    );
                    output_index += 1;
                }
                message = turn.message.clone();
            }
        }
    }
    if repair.is_none() {
        let _ = with_session(&emu, &sid, |s| {
            s.next_step = step + steps;
            Ok(())
        });
    }
    if let Some(why) = failure {
        let turn = set_turn(&emu, &sid, &turn_id, |t| {
            t["status"] = json!("failed");
            t["completed_at"] = json!(now());
            t["error"] = json!({"code": "sandbox_error", "message": why});
        });
        emit(
            &emu,
            &sid,
            json!({"type": "agent.session.turn.failed", "session_id": sid, "turn_id": turn_id, "turn": turn, "usage": null}),
        );
        finish(&emu, &sid, None);
        return;
    }
    if let Some(text) = &message {
        out_chars += text.len();
        emit_message(&emu, &sid, &turn_id, output_index, text);
    }
    publish(&emu, &sid, &turn_id);
    let instructions = with_session(&emu, &sid, |s| {
        Ok(s.object["agent"]["instructions"]
            .as_str()
            .map_or(0, str::len))
    })
    .unwrap_or(0);
    let (input_tokens, output_tokens) = (
        (instructions + text.len()).div_ceil(4) as u64,
        out_chars.div_ceil(4) as u64,
    );
    let usage = json!({
        "input_tokens": input_tokens, "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": output_tokens, "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": input_tokens + output_tokens,
    });
    let turn = set_turn(&emu, &sid, &turn_id, |t| {
        t["status"] = json!("completed");
        t["completed_at"] = json!(now());
        t["usage"] = usage.clone();
    });
    emit(
        &emu,
        &sid,
        json!({"type": "agent.session.turn.completed", "session_id": sid, "turn_id": turn_id, "turn": turn, "usage": usage}),
    );
    finish(&emu, &sid, Some(&usage));
}

/// The final answer's events: the item, its text part, the text, the part and the item done.
fn emit_message(emu: &Emulator, sid: &str, turn_id: &str, output_index: usize, text: &str) {
    let id = format!("msg_{}", random_hex(32));
    let mut item = json!({"id": id, "type": "message", "role": "assistant", "content": [],
                          "phase": "final_answer", "status": "in_progress", "turn_id": turn_id});
    let at = json!({"session_id": sid, "turn_id": turn_id, "item_id": id, "output_index": output_index, "content_index": 0});
    let with = |kind: &str, extra: Value| {
        let mut e = at.clone();
        e["type"] = json!(kind);
        if let (Some(e), Some(x)) = (e.as_object_mut(), extra.as_object()) {
            e.extend(x.clone());
        }
        e
    };
    emit(
        emu,
        sid,
        json!({"type": "agent.session.turn.item.added", "session_id": sid, "turn_id": turn_id, "output_index": output_index, "item": item}),
    );
    emit(
        emu,
        sid,
        with(
            "agent.session.turn.content_part.added",
            json!({"part": {"type": "output_text", "text": ""}}),
        ),
    );
    emit(
        emu,
        sid,
        with(
            "agent.session.turn.output_text.delta",
            json!({"delta": text}),
        ),
    );
    emit(
        emu,
        sid,
        with("agent.session.turn.output_text.done", json!({"text": text})),
    );
    emit(
        emu,
        sid,
        with(
            "agent.session.turn.content_part.done",
            json!({"part": {"type": "output_text", "text": text}}),
        ),
    );
    item["status"] = json!("completed");
    item["content"] = json!([{"type": "output_text", "text": text}]);
    let _ = with_session(emu, sid, |s| {
        s.items.push(item.clone());
        Ok(())
    });
    emit(
        emu,
        sid,
        json!({"type": "agent.session.turn.item.done", "session_id": sid, "turn_id": turn_id, "output_index": output_index, "item": item}),
    );
}

/// Publish every file under `/workspace/outputs` the turn created or changed.
fn publish(emu: &Emulator, sid: &str, turn_id: &str) {
    let Ok(Some(dir)) = with_session(emu, sid, |s| Ok(s.dir.clone())) else {
        return;
    };
    let mut found = Vec::new();
    walk(&dir.join(OUTPUTS), "", 0, &mut found);
    let created_at = now();
    let _ = with_session(emu, sid, |s| {
        for (rel, size) in found {
            if size > MAX_UPLOAD_BYTES as u64 {
                continue;
            }
            let Ok(bytes) = read_no_follow(&dir.join(OUTPUTS).join(&rel)) else {
                continue;
            };
            let digest = vouch_core::bundle::sha256_hex(&bytes);
            if s.published.get(&rel) == Some(&digest) {
                continue;
            }
            s.published.insert(rel.clone(), digest);
            s.artifacts.push(StoredArtifact {
                object: json!({
                    "id": format!("art_{}", random_hex(32)), "object": "agent.session.artifact",
                    "created_at": created_at, "environment_id": s.object["environment"]["id"],
                    "path": format!("{WORKSPACE}/{OUTPUTS}/{rel}"), "session_id": sid,
                    "size_bytes": bytes.len(), "turn_id": turn_id,
                }),
                bytes: std::sync::Arc::new(bytes),
            });
        }
        Ok(())
    });
}

/// The turn is over: the session is idle again (its usage summed), and says so.
fn finish(emu: &Emulator, sid: &str, usage: Option<&Value>) {
    let session = with_session(emu, sid, |s| {
        s.running = None;
        s.object["status"] = json!("idle");
        s.object["last_active_at"] = json!(now());
        if let Some(u) = usage {
            let mut total = s.object["usage"].clone();
            if total.is_null() {
                total = u.clone();
            } else {
                for k in ["input_tokens", "output_tokens", "total_tokens"] {
                    total[k] = json!(total[k].as_u64().unwrap_or(0) + u[k].as_u64().unwrap_or(0));
                }
            }
            s.object["usage"] = total;
        }
        Ok(s.object.clone())
    });
    if let Ok(session) = session {
        emit(
            emu,
            sid,
            json!({"type": "agent.session.idle", "session": session}),
        );
    }
}

pub(super) async fn get_session(
    State(emu): State<Emulator>,
    headers: HeaderMap,
    UrlPath(id): UrlPath<String>,
) -> Answer {
    beta(&headers)?;
    Ok(Json(with_session(&emu, &id, |s| Ok(s.object.clone()))?).into_response())
}

pub(super) async fn list_sessions(
    State(emu): State<Emulator>,
    headers: HeaderMap,
    Query(q): Query<ListQuery>,
) -> Answer {
    beta(&headers)?;
    let all: Vec<Value> = emu
        .store()
        .sessions
        .iter()
        .map(|s| s.object.clone())
        .collect();
    paginate(all, |s| s["id"].as_str().unwrap_or(""), &q, 20, 100)
}

pub(super) async fn delete_session(
    State(emu): State<Emulator>,
    headers: HeaderMap,
    UrlPath(id): UrlPath<String>,
) -> Answer {
    beta(&headers)?;
    let removed = {
        let mut store = emu.store();
        let at = store
            .sessions
            .iter()
            .position(|s| s.object["id"] == id.as_str())
            .ok_or_else(|| ApiErr::not_found("agent.session", &id))?;
        if store.sessions[at].running.is_some() {
            return Err(ApiErr::invalid(
                "session_id",
                "Running execution must be cancelled first.",
            ));
        }
        store.sessions.remove(at)
    };
    // Dropped outside the lock: its directory is removed and its subscribers' streams end.
    drop(removed);
    Ok(Json(json!({"id": id, "object": "agent.session.deleted", "deleted": true})).into_response())
}

/// `POST …/events`: a user message starts a turn; `cancel` stops the running one.
pub(super) async fn post_events(
    State(emu): State<Emulator>,
    headers: HeaderMap,
    UrlPath(id): UrlPath<String>,
    body: Bytes,
) -> Answer {
    beta(&headers)?;
    let body = parse_json_object(&body)?;
    let events = body
        .get("events")
        .and_then(Value::as_array)
        .cloned()
        .ok_or_else(|| ApiErr::missing("events"))?;
    with_session(&emu, &id, |_| Ok(()))?;
    for (i, e) in events.iter().enumerate() {
        match e.get("type").and_then(Value::as_str) {
            Some("agent.session.input.message") => {
                let text = input_text(
                    e.get("input").unwrap_or(&Value::Null),
                    &format!("events[{i}].input"),
                )?
                .ok_or_else(|| ApiErr::missing(&format!("events[{i}].input")))?;
                start_turn(&emu, &id, text)?;
            }
            Some("agent.session.input.cancel") => cancel(&emu, &id),
            Some(other) => {
                return Err(ApiErr::invalid(
                    &format!("events[{i}].type"),
                    format!("The emulator accepts only 'agent.session.input.message' and 'agent.session.input.cancel', not '{other}'."),
                ))
            }
            None => return Err(ApiErr::missing(&format!("events[{i}].type"))),
        }
    }
    Ok(StatusCode::ACCEPTED.into_response())
}

/// Stop the running turn (if any): it is cancelled and the session idle.
fn cancel(emu: &Emulator, sid: &str) {
    let running = with_session(emu, sid, |s| Ok(s.running.take()))
        .ok()
        .flatten();
    let Some((turn_id, task)) = running else {
        return;
    };
    task.abort();
    let turn = set_turn(emu, sid, &turn_id, |t| {
        t["status"] = json!("cancelled");
        t["completed_at"] = json!(now());
    });
    emit(
        emu,
        sid,
        json!({"type": "agent.session.turn.cancelled", "session_id": sid, "turn_id": turn_id, "turn": turn, "usage": null}),
    );
    finish(emu, sid, None);
}

/// `GET …/events`: the live stream of the session's events from now on (headers at once).
pub(super) async fn stream_events(
    State(emu): State<Emulator>,
    headers: HeaderMap,
    UrlPath(id): UrlPath<String>,
) -> Answer {
    beta(&headers)?;
    Ok(sse(subscribe(&emu, &id)?))
}

pub(super) async fn list_artifacts(
    State(emu): State<Emulator>,
    headers: HeaderMap,
    UrlPath(id): UrlPath<String>,
    Query(q): Query<ListQuery>,
) -> Answer {
    page_of(&emu, &headers, &id, &q, |s| {
        s.artifacts.iter().map(|a| a.object.clone()).collect()
    })
}

fn artifact<T>(
    emu: &Emulator,
    sid: &str,
    aid: &str,
    f: impl FnOnce(&StoredArtifact) -> T,
) -> Result<T, ApiErr> {
    with_session(emu, sid, |s| {
        s.artifacts
            .iter()
            .find(|a| a.object["id"] == aid)
            .map(f)
            .ok_or_else(|| ApiErr::not_found("agent.session.artifact", aid))
    })
}

pub(super) async fn get_artifact(
    State(emu): State<Emulator>,
    headers: HeaderMap,
    UrlPath((sid, aid)): UrlPath<(String, String)>,
) -> Answer {
    beta(&headers)?;
    Ok(Json(artifact(&emu, &sid, &aid, |a| a.object.clone())?).into_response())
}

pub(super) async fn artifact_content(
    State(emu): State<Emulator>,
    headers: HeaderMap,
    UrlPath((sid, aid)): UrlPath<(String, String)>,
) -> Answer {
    beta(&headers)?;
    let bytes = artifact(&emu, &sid, &aid, |a| a.bytes.clone())?;
    Ok(binary(bytes.as_ref().clone()))
}

pub(super) async fn delete_artifact(
    State(emu): State<Emulator>,
    headers: HeaderMap,
    UrlPath((sid, aid)): UrlPath<(String, String)>,
) -> Answer {
    beta(&headers)?;
    with_session(&emu, &sid, |s| {
        let at = s
            .artifacts
            .iter()
            .position(|a| a.object["id"] == aid.as_str())
            .ok_or_else(|| ApiErr::not_found("agent.session.artifact", &aid))?;
        s.artifacts.remove(at);
        Ok(())
    })?;
    Ok(
        Json(json!({"id": aid, "object": "agent.session.artifact.deleted", "deleted": true}))
            .into_response(),
    )
}

pub(super) async fn list_items(
    State(emu): State<Emulator>,
    headers: HeaderMap,
    UrlPath(id): UrlPath<String>,
    Query(q): Query<ListQuery>,
) -> Answer {
    page_of(&emu, &headers, &id, &q, |s| s.items.clone())
}

pub(super) async fn list_turns(
    State(emu): State<Emulator>,
    headers: HeaderMap,
    UrlPath(id): UrlPath<String>,
    Query(q): Query<ListQuery>,
) -> Answer {
    page_of(&emu, &headers, &id, &q, |s| s.turns.clone())
}

/// One cursor page of a session's objects (by their `id`).
fn page_of(
    emu: &Emulator,
    headers: &HeaderMap,
    id: &str,
    q: &ListQuery,
    all: impl FnOnce(&StoredSession) -> Vec<Value>,
) -> Answer {
    beta(headers)?;
    let all = with_session(emu, id, |s| Ok(all(s)))?;
    paginate(all, |v| v["id"].as_str().unwrap_or(""), q, 20, 100)
}

pub(super) async fn get_turn(
    State(emu): State<Emulator>,
    headers: HeaderMap,
    UrlPath((sid, tid)): UrlPath<(String, String)>,
) -> Answer {
    beta(&headers)?;
    let turn = with_session(&emu, &sid, |s| {
        s.turns
            .iter()
            .find(|t| t["id"] == tid.as_str())
            .cloned()
            .ok_or_else(|| ApiErr::not_found("agent.session.turn", &tid))
    })?;
    Ok(Json(turn).into_response())
}

impl Emulator {
    /// How many Agents API sessions the emulator holds.
    pub fn session_count(&self) -> usize {
        self.store().sessions.len()
    }

    /// The user messages each session's turns were given, by session id (oldest first).
    pub fn session_inputs(&self) -> Vec<(String, Vec<String>)> {
        self.store()
            .sessions
            .iter()
            .map(|s| {
                (
                    s.object["id"].as_str().unwrap_or("").to_string(),
                    s.inputs.clone(),
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workspace_paths_follow_the_sdks_rules() {
        assert_eq!(
            workspace_path("/workspace/data.csv").as_deref(),
            Some("data.csv")
        );
        assert_eq!(
            workspace_path("/workspace/in/a.csv").as_deref(),
            Some("in/a.csv")
        );
        for bad in [
            "/workspace/../etc/passwd",
            "/workspace/outputs",
            "/workspace/.codex/x",
            "/workspace//a",
            "/tmp/a",
            "/workspace/",
            "/workspace/.managed-agents-1/a",
        ] {
            assert_eq!(workspace_path(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_turns_input_is_a_string_or_user_messages() {
        assert_eq!(
            input_text(&json!("go"), "input").unwrap().as_deref(),
            Some("go")
        );
        let messages = json!([{"role": "user", "content": [{"type": "input_text", "text": "a"}, {"type": "input_text", "text": "b"}]}]);
        assert_eq!(
            input_text(&messages, "input").unwrap().as_deref(),
            Some("a\nb")
        );
        assert!(input_text(&json!(3), "input").is_err());
        assert_eq!(input_text(&Value::Null, "input").unwrap(), None);
    }
}
