//! `POST /responses`: validates the request as the API does (model, input, tools, tool_choice, a
//! replayed history whose shell outputs pair with calls), works out which playbook turn is asked
//! for, lets the agent play it in the container, and answers a Response object with usage.

use super::containers::{make_container, parse_json_object, with_container, ContainerSettings};
use super::{agent, CutShort, StoredResponse};
use super::{now, random_hex, Answer, ApiErr, Emulator};
use crate::run::wire::Deleted;
use axum::body::Bytes;
use axum::extract::{Path as UrlPath, State};
use axum::response::IntoResponse;
use axum::{Extension, Json};
use serde_json::{json, Value};

pub(super) async fn create_response(
    State(emu): State<Emulator>,
    cut: Option<Extension<CutShort>>,
    body: Bytes,
) -> Answer {
    let body = parse_json_object(&body)?;
    let model = match body.get("model") {
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        Some(_) => {
            return Err(ApiErr::invalid(
                "model",
                "Invalid 'model': expected a non-empty string.",
            ))
        }
        None => return Err(ApiErr::missing("model")),
    };
    let input = body.get("input").cloned().unwrap_or(Value::Null);
    let items: Vec<Value> = match &input {
        Value::String(_) | Value::Null => Vec::new(),
        Value::Array(a) => a.clone(),
        _ => {
            return Err(ApiErr::invalid(
                "input",
                "Invalid 'input': expected a string or an array of items.",
            ))
        }
    };
    let tools = match body.get("tools") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a.clone(),
        Some(_) => {
            return Err(ApiErr::invalid(
                "tools",
                "Invalid 'tools': expected an array.",
            ))
        }
    };
    let tool_choice = body.get("tool_choice").cloned();
    match &tool_choice {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) if ["none", "auto", "required"].contains(&s.as_str()) => {}
        Some(Value::Object(o)) if o.get("type").and_then(Value::as_str).is_some() => {}
        Some(v) => {
            return Err(ApiErr::invalid(
                "tool_choice",
                format!("Invalid 'tool_choice': {v}."),
            ))
        }
    }
    if body.contains_key("previous_response_id") && body.contains_key("conversation") {
        return Err(ApiErr::invalid(
            "previous_response_id",
            "'previous_response_id' cannot be used together with 'conversation'.",
        ));
    }
    // The shell tool and its container (`container_auto`: made for this conversation, below).
    let mut container_id = None;
    let mut auto: Option<ContainerSettings> = None;
    // `local`, or a SandboxAgent's `exec_command` function: the client runs the commands and
    // sends their outputs back.
    let mut local = false;
    let mut exec_command = false;
    for (i, tool) in tools.iter().enumerate() {
        match tool.get("type").and_then(Value::as_str) {
            Some("shell") => {
                let env = tool.get("environment");
                match env.and_then(|e| e.get("type")).and_then(Value::as_str) {
                    Some("container_reference") => {
                        let cid = env
                            .and_then(|e| e.get("container_id"))
                            .and_then(Value::as_str)
                            .ok_or_else(|| ApiErr::missing(&format!("tools[{i}].environment.container_id")))?;
                        if !emu.store().containers.iter().any(|c| c.object.id == cid) {
                            return Err(ApiErr::invalid(&format!("tools[{i}].environment.container_id"), format!("Container with id '{cid}' not found.")));
                        }
                        container_id = Some(cid.to_string());
                    }
                    Some("container_auto") => {
                        let at = format!("tools[{i}].environment.");
                        let settings = env
                            .and_then(Value::as_object)
                            .map(|e| ContainerSettings::parse(e, &at))
                            .transpose()?;
                        auto = settings;
                    }
                    Some("local") => local = true,
                    Some(other) => return Err(ApiErr::invalid(&format!("tools[{i}].environment.type"), format!("The emulator supports only 'container_reference', 'container_auto' and 'local' shell environments, not '{other}'."))),
                    None => return Err(ApiErr::missing(&format!("tools[{i}].environment"))),
                }
            }
            Some("function")
                if tool.get("name").and_then(Value::as_str) == Some(agent::EXEC_COMMAND) =>
            {
                exec_command = true;
            }
            Some(_) => {}
            None => return Err(ApiErr::missing(&format!("tools[{i}].type"))),
        }
    }
    // History: every replayed shell output must pair with a call (in the input or the chain).
    let previous = match body.get("previous_response_id") {
        None | Some(Value::Null) => None,
        Some(Value::String(id)) => {
            let store = emu.store();
            let r = store.responses.get(id).ok_or_else(|| {
                ApiErr::invalid(
                    "previous_response_id",
                    format!("Previous response with id '{id}' not found."),
                )
            })?;
            Some((r.turn, r.body.get("output").cloned().unwrap_or(Value::Null)))
        }
        Some(_) => {
            return Err(ApiErr::invalid(
                "previous_response_id",
                "Expected a string.",
            ))
        }
    };
    let mut calls: Vec<String> = previous
        .as_ref()
        .and_then(|(_, out)| out.as_array())
        .into_iter()
        .flatten()
        .filter(|i| {
            matches!(
                i.get("type").and_then(Value::as_str),
                Some("shell_call" | "function_call")
            )
        })
        .filter_map(|i| i.get("call_id").and_then(Value::as_str).map(str::to_string))
        .collect();
    for (i, item) in items.iter().enumerate() {
        if !item.is_object() {
            return Err(ApiErr::invalid(
                &format!("input[{i}]"),
                "Each input item must be an object.",
            ));
        }
        let kind = item.get("type").and_then(Value::as_str);
        let call_id = item.get("call_id").and_then(Value::as_str);
        match (kind, call_id) {
            (Some("shell_call" | "function_call"), Some(id)) => calls.push(id.to_string()),
            (Some(k @ ("shell_call_output" | "function_call_output")), Some(id))
                if !calls.iter().any(|c| c == id) =>
            {
                let what = if k == "shell_call_output" {
                    "shell call"
                } else {
                    "function call"
                };
                return Err(ApiErr::invalid(
                    &format!("input[{i}]"),
                    format!("No tool call found for {what} output with call_id {id}."),
                ));
            }
            (
                Some("shell_call" | "shell_call_output" | "function_call" | "function_call_output"),
                None,
            ) => return Err(ApiErr::missing(&format!("input[{i}].call_id"))),
            (None, _) if item.get("role").is_none() => {
                return Err(ApiErr::missing(&format!("input[{i}].type")))
            }
            _ => {}
        }
    }
    let turn = {
        let store = emu.store();
        let from_history = calls
            .iter()
            .filter_map(|c| store.call_turns.get(c))
            .max()
            .map(|t| t + 1);
        from_history
            .max(previous.as_ref().map(|(t, _)| t + 1))
            .unwrap_or(0)
    };
    // A repair prompt (`vouch run --repair`): a user message continuing a conversation whose last
    // turn ended with the agent's message. It gets the playbook's next `[[repair]]` entry.
    let repair = repair_of(previous.as_ref(), &items);
    if let Some((_, prompt)) = &repair {
        emu.store().repair_prompts.push(prompt.clone());
    }
    let turn = repair
        .as_ref()
        .map_or(turn, |(k, _)| agent::REPAIR_TURNS + k);
    // `container_auto`: the conversation's container — the one its earlier shell calls ran in (a
    // chained or replayed history), else a new one holding the listed uploads.
    if let Some(settings) = auto {
        let earlier = {
            let store = emu.store();
            calls
                .iter()
                .rev()
                .filter_map(|c| store.call_containers.get(c))
                .find(|cid| store.containers.iter().any(|k| &k.object.id == *cid))
                .cloned()
        };
        container_id = Some(match earlier {
            Some(cid) => cid,
            None => {
                make_container(
                    &emu,
                    format!("container_auto_{}", random_hex(8)),
                    settings,
                    crate::run::wire::ExpiresAfter {
                        anchor: "last_active_at".into(),
                        minutes: 20,
                    },
                )?
                .id
            }
        });
    }
    let shell_allowed = tool_choice.as_ref().and_then(Value::as_str) != Some("none");
    // The client's own shell: the shell tool's `local` environment, else `exec_command` (when
    // no hosted container is named).
    let client_shell = match (local, exec_command && container_id.is_none()) {
        (true, _) => Some(agent::ClientShell::Local),
        (false, true) => Some(agent::ClientShell::ExecCommand),
        _ => None,
    };
    let (turn, local_output) = if let (Some(shell), true) = (client_shell, shell_allowed) {
        let (turn, output) = local_turn(
            &emu,
            &calls,
            &items,
            previous.as_ref().map(|p| p.0),
            repair.as_ref().map(|_| turn),
            cut.is_some(),
            shell,
        )?;
        (turn, Some(output))
    } else {
        (turn, None)
    };
    // The agent acts only when it has a shell and may use it.
    let output = match (&container_id, tool_choice.as_ref().and_then(Value::as_str)) {
        _ if local_output.is_some() => local_output.expect("checked"),
        (Some(cid), choice) if choice != Some("none") => {
            let dir = with_container(&emu, cid, |c| {
                c.object.last_active_at = Some(now());
                Ok(c.dir.clone())
            })?;
            agent::play(
                &emu.shared.config.playbook,
                turn,
                emu.shared.sandbox.as_ref(),
                &dir,
                cid,
                cut.is_some(),
            )
            .await
            .map_err(|e| ApiErr::server(e.to_string()).code("sandbox_unavailable"))?
        }
        _ => agent::TurnOutput {
            items: vec![json!({
                "type": "message", "id": format!("msg_{}", random_hex(40)), "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": "I need a shell tool bound to a container to do this work.", "annotations": []}],
            })],
            call_ids: Vec::new(),
            steps: Vec::new(),
        },
    };
    let input_chars = body
        .get("instructions")
        .and_then(Value::as_str)
        .map_or(0, str::len)
        + input.to_string().len();
    let output_chars: usize = output.items.iter().map(|i| i.to_string().len()).sum();
    let (input_tokens, output_tokens) = (
        input_chars.div_ceil(4) as u64,
        output_chars.div_ceil(4) as u64,
    );
    let id = format!("resp_{}", random_hex(48));
    let created_at = now();
    let (status, incomplete_details) = if cut.is_some() {
        ("incomplete", json!({"reason": "max_output_tokens"}))
    } else {
        ("completed", Value::Null)
    };
    let response = json!({
        "id": id,
        "object": "response",
        "created_at": created_at,
        "completed_at": if cut.is_some() { Value::Null } else { json!(created_at) },
        "status": status,
        "background": false,
        "error": null,
        "incomplete_details": incomplete_details,
        "instructions": body.get("instructions").cloned().unwrap_or(Value::Null),
        "max_output_tokens": body.get("max_output_tokens").cloned().unwrap_or(Value::Null),
        "max_tool_calls": body.get("max_tool_calls").cloned().unwrap_or(Value::Null),
        "model": model,
        "output": output.items,
        "parallel_tool_calls": body.get("parallel_tool_calls").cloned().unwrap_or(json!(true)),
        "previous_response_id": body.get("previous_response_id").cloned().unwrap_or(Value::Null),
        "reasoning": {"effort": null, "summary": null},
        "store": body.get("store").cloned().unwrap_or(json!(true)),
        "temperature": 1.0,
        "text": {"format": {"type": "text"}},
        "tool_choice": tool_choice.unwrap_or(json!("auto")),
        "tools": tools,
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": {
            "input_tokens": input_tokens,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": input_tokens + output_tokens,
        },
        "user": null,
        "metadata": body.get("metadata").cloned().unwrap_or(json!({})),
    });
    {
        let mut store = emu.store();
        for (c, step) in output.call_ids.iter().zip(&output.steps) {
            store.call_turns.insert(c.clone(), turn);
            store.call_steps.insert(c.clone(), *step);
            if let Some(cid) = &container_id {
                store.call_containers.insert(c.clone(), cid.clone());
            }
        }
        store.responses.insert(
            id,
            StoredResponse {
                body: response.clone(),
                turn,
            },
        );
    }
    if body.get("stream").and_then(Value::as_bool) == Some(true) {
        return Ok(event_stream(&response));
    }
    Ok(Json(response).into_response())
}

/// `stream: true`: the answer as server-sent events, in the API's order — `response.created`
/// and `response.in_progress` (the response with no output yet), an `output_item.added` and
/// `output_item.done` per output item, and the terminal `response.completed` (or
/// `response.incomplete`) carrying the whole response. The emulator's agent has finished its
/// turn when the stream starts; every event is sent at once.
fn event_stream(response: &Value) -> axum::response::Response {
    let mut events: Vec<Value> = Vec::new();
    let mut pending = response.clone();
    pending["status"] = json!("in_progress");
    pending["output"] = json!([]);
    pending["usage"] = Value::Null;
    pending["completed_at"] = Value::Null;
    events.push(json!({"type": "response.created", "response": pending.clone()}));
    events.push(json!({"type": "response.in_progress", "response": pending}));
    let items = response["output"].as_array().cloned().unwrap_or_default();
    for (i, item) in items.iter().enumerate() {
        events.push(json!({"type": "response.output_item.added", "output_index": i, "item": item}));
        events.push(json!({"type": "response.output_item.done", "output_index": i, "item": item}));
    }
    let last = match response["status"].as_str() {
        Some("incomplete") => "response.incomplete",
        Some("failed") => "response.failed",
        _ => "response.completed",
    };
    events.push(json!({"type": last, "response": response}));
    let mut text = String::new();
    for (n, mut e) in events.into_iter().enumerate() {
        e["sequence_number"] = json!(n);
        let kind = e["type"].as_str().unwrap_or("").to_string();
        text.push_str(&format!("event: {kind}\ndata: {e}\n\n"));
    }
    (
        [
            (
                axum::http::header::CONTENT_TYPE,
                "text/event-stream; charset=utf-8",
            ),
            (axum::http::header::CACHE_CONTROL, "no-cache"),
        ],
        text,
    )
        .into_response()
}

/// Whether the request is a repair prompt, and which (0 for the first) with its text: a user
/// message after the agent's final message — in the chained response (`previous_response_id`),
/// or in the replayed history (a second user message after an assistant message).
fn repair_of(previous: Option<&(usize, Value)>, items: &[Value]) -> Option<(usize, String)> {
    let is_assistant_message = |i: &Value| {
        i.get("type").and_then(Value::as_str).unwrap_or("message") == "message"
            && i.get("role").and_then(Value::as_str) == Some("assistant")
    };
    let user_text = |i: &Value| -> Option<String> {
        if i.get("role").and_then(Value::as_str) != Some("user") {
            return None;
        }
        match i.get("content")? {
            Value::String(s) => Some(s.clone()),
            Value::Array(parts) => Some(
                parts
                    .iter()
                    .filter_map(|p| p.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            _ => None,
        }
    };
    let last_user = items.iter().rposition(|i| user_text(i).is_some())?;
    let prompt = user_text(&items[last_user])?;
    match previous {
        Some((turn, output)) => {
            let ended = output
                .as_array()
                .is_some_and(|o| o.iter().any(is_assistant_message));
            ended.then(|| {
                let k = turn.checked_sub(agent::REPAIR_TURNS).map_or(0, |k| k + 1);
                (k, prompt)
            })
        }
        None => {
            let users = items.iter().filter(|i| user_text(i).is_some()).count();
            let answered_before = items[..last_user].iter().any(is_assistant_message);
            (users >= 2 && answered_before).then(|| (users - 2, prompt))
        }
    }
}

/// The local environment's next answer and its turn: the message ending the latest turn whose
/// calls the history holds (once every one of them has its output), else the next turn's calls.
fn local_turn(
    emu: &Emulator,
    calls: &[String],
    items: &[Value],
    previous_turn: Option<usize>,
    starts: Option<usize>,
    cut_short: bool,
    shell: agent::ClientShell,
) -> Result<(usize, agent::TurnOutput), ApiErr> {
    let playbook = &emu.shared.config.playbook;
    if let Some(t) = starts {
        // A new turn begins (a repair): its first calls, whatever the history holds.
        return Ok(match shell {
            agent::ClientShell::ExecCommand => (
                t,
                agent::exec_command_call(playbook, t, 0)
                    .unwrap_or_else(|| agent::local_message(playbook, t)),
            ),
            agent::ClientShell::Local => (t, agent::local_calls(playbook, t, cut_short)),
        });
    }
    let answered: Vec<&str> = items
        .iter()
        .filter(|i| {
            matches!(
                i.get("type").and_then(Value::as_str),
                Some("shell_call_output" | "function_call_output")
            )
        })
        .filter_map(|i| i.get("call_id").and_then(Value::as_str))
        .collect();
    let store = emu.store();
    let latest = calls
        .iter()
        .filter_map(|c| store.call_turns.get(c).copied())
        .max();
    if let Some(t) = latest {
        let unanswered = calls
            .iter()
            .filter(|c| store.call_turns.get(*c) == Some(&t))
            .find(|c| !answered.contains(&c.as_str()));
        if let Some(c) = unanswered {
            let what = match shell {
                agent::ClientShell::Local => "shell call",
                agent::ClientShell::ExecCommand => "function call",
            };
            return Err(ApiErr::invalid(
                "input",
                format!("No tool output found for {what} {c}."),
            ));
        }
    }
    let next_turn = |latest: Option<usize>| match latest {
        Some(t) => t + 1,
        None => previous_turn.map_or(0, |p| p + 1),
    };
    if shell == agent::ClientShell::ExecCommand {
        // One command a response: the next of the latest turn, else its message, else the next
        // turn's first command (a turn without commands gives its message).
        if let Some(t) = latest {
            let step = calls
                .iter()
                .filter(|c| store.call_turns.get(*c) == Some(&t))
                .filter_map(|c| store.call_steps.get(c))
                .max()
                .map_or(0, |s| s + 1);
            if let Some(out) = agent::exec_command_call(playbook, t, step) {
                return Ok((t, out));
            }
            if playbook.has_message(t) {
                return Ok((t, agent::local_message(playbook, t)));
            }
        }
        let t = next_turn(latest);
        return Ok(match agent::exec_command_call(playbook, t, 0) {
            Some(out) => (t, out),
            None => (t, agent::local_message(playbook, t)),
        });
    }
    Ok(match latest {
        Some(t) if playbook.has_message(t) => (t, agent::local_message(playbook, t)),
        Some(t) => (t + 1, agent::local_calls(playbook, t + 1, cut_short)),
        None => {
            let t = next_turn(None);
            (t, agent::local_calls(playbook, t, cut_short))
        }
    })
}

pub(super) async fn get_response(
    State(emu): State<Emulator>,
    UrlPath(id): UrlPath<String>,
) -> Answer {
    let store = emu.store();
    let r = store
        .responses
        .get(&id)
        .ok_or_else(|| ApiErr::not_found("Response", &id))?;
    Ok(Json(r.body.clone()).into_response())
}

pub(super) async fn delete_response(
    State(emu): State<Emulator>,
    UrlPath(id): UrlPath<String>,
) -> Answer {
    emu.store()
        .responses
        .remove(&id)
        .ok_or_else(|| ApiErr::not_found("Response", &id))?;
    Ok(Json(Deleted {
        id,
        object: "response.deleted".into(),
        deleted: true,
    })
    .into_response())
}
