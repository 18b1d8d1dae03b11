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
//! a playbook can write it with a here-document as a model would; `{{input_dir}}` and
//! `{{output_dir}}` by where the environment keeps the uploaded statements and where the
//! artifacts belong (see [`Dirs`]). Limits: output per command is
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
    (
        "repair",
        include_str!("../../../../fixtures/playbooks/repair.toml"),
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
    /// What the agent does when told its findings (`vouch run --repair`): one entry per repair
    /// prompt, in order, with the keys of a turn (a repair without a message gets a standard
    /// one, so each repair is one turn); past the last, the agent answers without changing
    /// anything.
    #[serde(default, rename = "repair")]
    pub repairs: Vec<Turn>,
}

/// Turn indices from here on are repair turns: `REPAIR_TURNS + k` is the `k`-th repair.
pub const REPAIR_TURNS: usize = 1 << 20;

/// The message of a repair entry that gives none.
const REPAIRED: &str = "I fixed the files the findings name and re-ran the script.";

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
    /// Turn `index`; past the last, the last again (`repeat_last`) or `fallback`. A repair turn
    /// past the last repair entry is `fallback` (no commands, a message).
    fn turn<'a>(&'a self, index: usize, fallback: &'a Turn) -> &'a Turn {
        if let Some(k) = index.checked_sub(REPAIR_TURNS) {
            return self.repairs.get(k).unwrap_or(fallback);
        }
        match self.turns.get(index) {
            Some(t) => t,
            None if self.repeat_last => self.turns.last().unwrap_or(fallback),
            None => fallback,
        }
    }

    /// Turn `index` as it is played (past the last: the last again, or a closing message).
    pub fn step(&self, index: usize) -> Turn {
        self.turn(index, &fallback()).clone()
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
        let mut playbook: Playbook = toml::from_str(text)
            .map_err(|e| PlaybookError::Parse(name.to_string(), e.to_string()))?;
        for repair in &mut playbook.repairs {
            repair.message.get_or_insert_with(|| REPAIRED.to_string());
        }
        Ok(playbook)
    }
}

/// What one turn produced: its output items and the call ids of its shell calls.
pub struct TurnOutput {
    pub items: Vec<Value>,
    pub call_ids: Vec<String>,
    /// Per call, which command of its turn it runs (`exec_command` calls run one each).
    pub steps: Vec<usize>,
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
        let commands: Vec<String> = call
            .commands
            .iter()
            .map(|c| expand(c, Dirs::MNT_DATA))
            .collect();
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
    let steps = vec![0; call_ids.len()];
    Ok(TurnOutput {
        items,
        call_ids,
        steps,
    })
}

/// How a client that runs the commands itself is asked to: the shell tool's `local` environment
/// (`shell_call` items, answered with `shell_call_output`), or a function tool named
/// `exec_command` taking `cmd`, as the Agents SDK's `SandboxAgent` exposes (`function_call`
/// items, answered with `function_call_output`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClientShell {
    Local,
    ExecCommand,
}

/// The function tool a `SandboxAgent` runs commands with.
pub const EXEC_COMMAND: &str = "exec_command";

/// The shell tool's `local` environment: the client runs the commands. Turn `index`'s calls,
/// unexecuted (the client answers each in its next request); a turn without calls gives its
/// message. `cut_short` gives the first call only.
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
        steps: Vec::new(),
    };
    for call in calls {
        let commands: Vec<String> = call
            .commands
            .iter()
            .map(|c| expand(c, Dirs::MNT_DATA))
            .collect();
        let call_id = format!("call_{}", super::random_alnum(24));
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
        out.steps.push(0);
    }
    out
}

/// A `SandboxAgent`'s `exec_command`: command `step` of turn `index` as one `function_call` for
/// the client to run, or `None` when the turn has no command left. One call a response: the SDK
/// runs a response's function calls at once, and a turn's commands depend on each other.
pub fn exec_command_call(playbook: &Playbook, index: usize, step: usize) -> Option<TurnOutput> {
    let fallback = fallback();
    let turn = playbook.turn(index, &fallback);
    let command = commands_of(turn, Dirs::WORKSPACE_ROOT)
        .into_iter()
        .nth(step)?;
    let call_id = format!("call_{}", super::random_alnum(24));
    // Long enough for the script to finish; the SDK clamps it to 30 s.
    let yield_ms = (command.timeout.as_millis() as u64).min(30_000);
    let arguments = json!({"cmd": command.text, "yield_time_ms": yield_ms}).to_string();
    Some(TurnOutput {
        items: vec![json!({
            "type": "function_call",
            "id": format!("fc_{}", super::random_hex(40)),
            "call_id": call_id,
            "name": EXEC_COMMAND,
            "arguments": arguments,
            "status": "completed",
        })],
        call_ids: vec![call_id],
        steps: vec![step],
    })
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
        steps: Vec::new(),
    }
}

/// One command of a turn, expanded for an environment, with its call's time limit.
pub struct Command {
    pub text: String,
    pub timeout: Duration,
}

/// Every command of `turn`'s calls, in order, expanded for `dirs`.
pub fn commands_of(turn: &Turn, dirs: Dirs) -> Vec<Command> {
    turn.calls
        .iter()
        .flat_map(|call| {
            let timeout = Duration::from_millis(call.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS));
            call.commands.iter().map(move |c| Command {
                text: expand(c, dirs),
                timeout,
            })
        })
        .collect()
}

/// A command's output as one text (stdout, then stderr), truncated as the hosted tool does, and
/// its exit code (`None` when it timed out).
pub fn combined_output(ran: &Ran) -> (String, Option<i32>) {
    let text = format!("{}{}", ran.stdout, ran.stderr);
    let code = match ran.outcome {
        Outcome::Exit(code) => Some(code),
        Outcome::Timeout => None,
    };
    (truncate(&text), code)
}

/// Where an environment keeps the uploaded statements and where the artifacts belong, as its
/// agent is told (the `{{input_dir}}` and `{{output_dir}}` of a playbook).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dirs {
    pub input: &'static str,
    pub output: &'static str,
}

impl Dirs {
    /// A hosted container, and vouch's local jail.
    pub const MNT_DATA: Dirs = Dirs {
        input: "/mnt/data",
        output: "/mnt/data",
    };
    /// An Agents API session: inputs under `/workspace`, artifacts published from its `outputs`.
    pub const AGENTS_API: Dirs = Dirs {
        input: "/workspace",
        output: "/workspace/outputs",
    };
    /// A `SandboxAgent`'s workspace: commands run in its root, wherever that is on the host.
    pub const WORKSPACE_ROOT: Dirs = Dirs {
        input: ".",
        output: ".",
    };
}

fn expand(command: &str, dirs: Dirs) -> String {
    command
        .replace("{{input_dir}}", dirs.input)
        .replace("{{output_dir}}", dirs.output)
        .replace("{{northstar_script}}", NORTHSTAR_SCRIPT)
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
        let c = expand(
            "cat > a.py <<'EOF'\n{{northstar_script}}EOF",
            Dirs::MNT_DATA,
        );
        assert!(c.contains("def find_default_input"));
        assert!(c.ends_with("sys.exit(main())\nEOF"));
    }

    #[test]
    fn the_directory_placeholders_expand_to_the_environments_paths() {
        let c = "ls {{input_dir}} && mkdir -p {{output_dir}}";
        assert_eq!(
            expand(c, Dirs::MNT_DATA),
            "ls /mnt/data && mkdir -p /mnt/data"
        );
        assert_eq!(
            expand(c, Dirs::AGENTS_API),
            "ls /workspace && mkdir -p /workspace/outputs"
        );
        assert_eq!(expand(c, Dirs::WORKSPACE_ROOT), "ls . && mkdir -p .");
    }

    #[test]
    fn truncation_keeps_char_boundaries() {
        let long = "é".repeat(MAX_OUTPUT_LENGTH);
        let t = truncate(&long);
        assert!(t.ends_with("[... output truncated]"));
    }
}
