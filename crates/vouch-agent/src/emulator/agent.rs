//! The emulator's scripted agent: a playbook of shell commands per turn, executed for real in the
//! container's directory under the sandbox, answered as the hosted shell tool answers — paired
//! `shell_call`/`shell_call_output` items, then (when the turn has one) an assistant `message`.
//!
//! A playbook is TOML (`fixtures/playbooks/*.toml` are embedded by name):
//!
//! ```toml
//! description = "what it does"
//! [[turn]]
//! message = "final answer"          # optional: a turn without one makes the client take another
//! [[turn.call]]
//! commands = ["ls -la", "python3 analyze_financials.py"]
//! timeout_ms = 120000                # optional
//! ```
//!
//! `{{northstar_script}}` in a command is replaced by the Northstar fixture's script (embedded), so
//! a playbook can write it with a here-document as a model would. Limits: output per command is
//! truncated to `max_output_length` (4096) bytes, as the hosted tool does.

use crate::sandbox::{Outcome, Ran, Sandbox, SandboxError};
use serde::Deserialize;
use serde_json::{json, Value};
use std::path::Path;
use std::time::Duration;

/// The Northstar fixture's script, which the default playbook writes and runs.
pub const NORTHSTAR_SCRIPT: &str =
    include_str!("../../../../fixtures/northstar/bundle/analyze_financials.py");

/// The embedded playbooks, by name.
pub const PLAYBOOKS: &[(&str, &str)] = &[
    (
        "northstar",
        include_str!("../../../../fixtures/playbooks/northstar.toml"),
    ),
    (
        "two-turns",
        include_str!("../../../../fixtures/playbooks/two-turns.toml"),
    ),
    (
        "edited-number",
        include_str!("../../../../fixtures/playbooks/edited-number.toml"),
    ),
    (
        "skipped-file",
        include_str!("../../../../fixtures/playbooks/skipped-file.toml"),
    ),
    (
        "no-message",
        include_str!("../../../../fixtures/playbooks/no-message.toml"),
    ),
];

const MAX_OUTPUT_LENGTH: usize = 4096;
const DEFAULT_TIMEOUT_MS: u64 = 120_000;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Playbook {
    #[serde(default)]
    pub description: String,
    #[serde(default, rename = "turn")]
    pub turns: Vec<Turn>,
    /// Past the last turn, play it again instead of answering with a closing message.
    #[serde(default)]
    pub repeat_last: bool,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Turn {
    #[serde(default, rename = "call")]
    pub calls: Vec<Call>,
    #[serde(default)]
    pub message: Option<String>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Call {
    pub commands: Vec<String>,
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

#[derive(Debug, thiserror::Error)]
pub enum PlaybookError {
    #[error("cannot read playbook `{0}`: {1}")]
    Read(String, String),
    #[error("invalid playbook `{0}`: {1}")]
    Parse(String, String),
}

fn fallback() -> Turn {
    Turn {
        calls: Vec::new(),
        message: Some("The analysis is complete; nothing more to do.".into()),
    }
}

impl Playbook {
    /// Turn `index`; past the last, the last again (`repeat_last`) or `fallback`.
    fn turn<'a>(&'a self, index: usize, fallback: &'a Turn) -> &'a Turn {
        match self.turns.get(index) {
            Some(t) => t,
            None if self.repeat_last => self.turns.last().unwrap_or(fallback),
            None => fallback,
        }
    }

    /// Whether turn `index` ends with a message.
    pub fn has_message(&self, index: usize) -> bool {
        self.turn(index, &fallback()).message.is_some()
    }

    /// An embedded playbook by name, else a TOML file.
    pub fn load(name_or_file: &str) -> Result<Playbook, PlaybookError> {
        if let Some((_, text)) = PLAYBOOKS.iter().find(|(n, _)| *n == name_or_file) {
            return Playbook::parse(name_or_file, text);
        }
        let text = std::fs::read_to_string(name_or_file).map_err(|e| {
            let known: Vec<&str> = PLAYBOOKS.iter().map(|(n, _)| *n).collect();
            PlaybookError::Read(
                name_or_file.to_string(),
                format!("{e} (embedded playbooks: {})", known.join(", ")),
            )
        })?;
        Playbook::parse(name_or_file, &text)
    }

    pub fn parse(name: &str, text: &str) -> Result<Playbook, PlaybookError> {
        toml::from_str(text).map_err(|e| PlaybookError::Parse(name.to_string(), e.to_string()))
    }
}

/// What one turn produced: its output items and the call ids of its shell calls.
pub struct TurnOutput {
    pub items: Vec<Value>,
    pub call_ids: Vec<String>,
}

/// Play turn `index` of `playbook` in `data_dir`. Past the last turn the agent only answers.
/// `cut_short` (the `incomplete` fault) runs the first call only and gives no message.
pub async fn play(
    playbook: &Playbook,
    index: usize,
    sandbox: Option<&Sandbox>,
    data_dir: &Path,
    container_id: &str,
    cut_short: bool,
) -> Result<TurnOutput, SandboxError> {
    let fallback = fallback();
    let turn = playbook.turn(index, &fallback);
    let mut items = Vec::new();
    let mut call_ids = Vec::new();
    let calls = if cut_short {
        &turn.calls[..turn.calls.len().min(1)]
    } else {
        &turn.calls[..]
    };
    for call in calls {
        let sandbox = sandbox.ok_or(SandboxError::Missing)?;
        let call_id = format!("call_{}", super::random_alnum(24));
        let timeout_ms = call.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS);
        let commands: Vec<String> = call.commands.iter().map(|c| expand(c)).collect();
        items.push(json!({
            "type": "shell_call",
            "id": format!("sh_{}", super::random_hex(40)),
            "call_id": call_id,
            "status": "completed",
            "action": {"commands": commands, "timeout_ms": timeout_ms, "max_output_length": MAX_OUTPUT_LENGTH},
            "environment": {"type": "container_reference", "container_id": container_id},
        }));
        let mut chunks = Vec::new();
        for command in &commands {
            let ran = sandbox
                .run(data_dir, command, Duration::from_millis(timeout_ms))
                .await?;
            chunks.push(chunk(&ran));
        }
        items.push(json!({
            "type": "shell_call_output",
            "id": format!("sho_{}", super::random_hex(40)),
            "call_id": call_id,
            "status": "completed",
            "max_output_length": MAX_OUTPUT_LENGTH,
            "output": chunks,
        }));
        call_ids.push(call_id);
    }
    if let (Some(text), false) = (&turn.message, cut_short) {
        items.push(json!({
            "type": "message",
            "id": format!("msg_{}", super::random_hex(40)),
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }));
    }
    Ok(TurnOutput { items, call_ids })
}

/// The local environment (`{"type":"local"}`): the client runs the commands. Turn `index`'s
/// shell calls, unexecuted (the client answers each with a `shell_call_output` in its next
/// request); a turn without calls gives its message. `cut_short` gives the first call only.
pub fn local_calls(playbook: &Playbook, index: usize, cut_short: bool) -> TurnOutput {
    let fallback = fallback();
    let turn = playbook.turn(index, &fallback);
    if turn.calls.is_empty() {
        return local_message(playbook, index);
    }
    let calls = if cut_short {
        &turn.calls[..1]
    } else {
        &turn.calls[..]
    };
    let mut out = TurnOutput {
        items: Vec::new(),
        call_ids: Vec::new(),
    };
    for call in calls {
        let call_id = format!("call_{}", super::random_alnum(24));
        let commands: Vec<String> = call.commands.iter().map(|c| expand(c)).collect();
        out.items.push(json!({
            "type": "shell_call",
            "id": format!("sh_{}", super::random_hex(40)),
            "call_id": call_id,
            "status": "completed",
            "action": {
                "commands": commands,
                "timeout_ms": call.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS),
                "max_output_length": MAX_OUTPUT_LENGTH,
            },
            "environment": {"type": "local"},
        }));
        out.call_ids.push(call_id);
    }
    out
}

/// The message that ends turn `index` (in the local environment it comes once the client has
/// sent the outputs of the turn's calls).
pub fn local_message(playbook: &Playbook, index: usize) -> TurnOutput {
    let fallback = fallback();
    let text = playbook
        .turn(index, &fallback)
        .message
        .clone()
        .unwrap_or_else(|| "The analysis is complete; nothing more to do.".into());
    TurnOutput {
        items: vec![json!({
            "type": "message",
            "id": format!("msg_{}", super::random_hex(40)),
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        })],
        call_ids: Vec::new(),
    }
}

fn expand(command: &str) -> String {
    command.replace("{{northstar_script}}", NORTHSTAR_SCRIPT)
}

fn chunk(ran: &Ran) -> Value {
    let outcome = match ran.outcome {
        Outcome::Exit(code) => json!({"type": "exit", "exit_code": code}),
        Outcome::Timeout => json!({"type": "timeout"}),
    };
    json!({
        "stdout": truncate(&ran.stdout),
        "stderr": truncate(&ran.stderr),
        "outcome": outcome,
    })
}

fn truncate(text: &str) -> String {
    if text.len() <= MAX_OUTPUT_LENGTH {
        return text.to_string();
    }
    let mut end = MAX_OUTPUT_LENGTH;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\n[... output truncated]", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_embedded_playbook_parses() {
        for (name, _) in PLAYBOOKS {
            let p = Playbook::load(name).unwrap();
            assert!(!p.turns.is_empty(), "{name}");
        }
    }

    #[test]
    fn the_script_placeholder_expands_to_the_northstar_script() {
        let c = expand("cat > a.py <<'EOF'\n{{northstar_script}}EOF");
        assert!(c.contains("def find_default_input"));
        assert!(c.ends_with("sys.exit(main())\nEOF"));
    }

    #[test]
    fn truncation_keeps_char_boundaries() {
        let long = "é".repeat(MAX_OUTPUT_LENGTH);
        let t = truncate(&long);
        assert!(t.ends_with("[... output truncated]"));
    }
}
