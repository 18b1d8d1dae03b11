//! `vouch run --environment local`: the shell tool's `local` environment. The model's shell
//! calls come back to vouch, which runs each command under bubblewrap — the jail of
//! `--reexecute`: no network, the system read-only, a private `/mnt/data` holding only the
//! source, CPU, memory, file-size and time limits, a cleared environment — and answers with
//! `shell_call_output` items on the next turn. The six files are then collected from that
//! `/mnt/data`, which is deleted afterwards whatever happens. Nothing is uploaded and no
//! container exists, so there is nothing to clean up at the API.

use super::record::ArtifactRecord;
use super::stage_dir::ScratchDir;
use super::{converse, repair, wire, Plan, Progressed, ShellSide, Start};
use crate::reexecute::jail::{Ending, Jail, Limits};
use crate::run::client::Client;
use crate::run::progress::{Stage, TrialLine};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;
use vouch_core::bundle::{read_regular, sha256_hex};

/// A shell call's time limit when it names none (the hosted shell's default).
const DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// The longest a single command may run, whatever the call asks.
const MAX_TIMEOUT_MS: u64 = 600_000;
/// Output kept per stream when the call names no `max_output_length`.
const DEFAULT_MAX_OUTPUT: usize = 4096;

pub(crate) struct Local {
    jail: Jail,
    data_dir: PathBuf,
}

impl ShellSide for Local {
    fn tool(&mut self, _plan: &Plan, _done: &mut Progressed) -> Value {
        json!({"type": "shell", "environment": {"type": "local"}})
    }

    async fn after(
        &mut self,
        response: &wire::Response,
        _done: &mut Progressed,
    ) -> Result<Vec<Value>, String> {
        let answered: Vec<&str> = response
            .output
            .iter()
            .filter(|i| i.get("type").and_then(Value::as_str) == Some("shell_call_output"))
            .filter_map(|i| i.get("call_id").and_then(Value::as_str))
            .collect();
        let mut outputs = Vec::new();
        for call in response
            .output
            .iter()
            .filter(|i| i.get("type").and_then(Value::as_str) == Some("shell_call"))
        {
            let Some(call_id) = call.get("call_id").and_then(Value::as_str) else {
                continue;
            };
            if answered.contains(&call_id) {
                continue;
            }
            let action = call.get("action");
            let commands: Vec<String> = action
                .and_then(|a| a.get("commands"))
                .and_then(Value::as_array)
                .map(|c| {
                    c.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default();
            let timeout_ms = action
                .and_then(|a| a.get("timeout_ms"))
                .and_then(Value::as_u64)
                .unwrap_or(DEFAULT_TIMEOUT_MS)
                .clamp(1, MAX_TIMEOUT_MS);
            let max_output = action
                .and_then(|a| a.get("max_output_length"))
                .and_then(Value::as_u64)
                .map_or(DEFAULT_MAX_OUTPUT, |n| n as usize);
            let mut chunks = Vec::new();
            for command in commands {
                let (jail, dir) = (self.jail.clone(), self.data_dir.clone());
                let limits = Limits {
                    wall: Duration::from_millis(timeout_ms),
                    cpu_seconds: timeout_ms.div_ceil(1000),
                    ..Limits::default()
                };
                let ran = tokio::task::spawn_blocking(move || jail.shell(&dir, &command, &limits))
                    .await
                    .map_err(|e| format!("the sandbox's worker failed: {e}"))?
                    .map_err(|e| e.to_string())?;
                let outcome = match ran.ending {
                    Ending::Exit(code) => json!({"type": "exit", "exit_code": code}),
                    Ending::Signal(sig) => json!({"type": "exit", "exit_code": 128 + sig}),
                    Ending::Timeout => json!({"type": "timeout"}),
                };
                chunks.push(json!({
                    "stdout": truncate(&ran.stdout, max_output),
                    "stderr": truncate(&ran.stderr, max_output),
                    "outcome": outcome,
                }));
            }
            outputs.push(json!({
                "type": "shell_call_output",
                "call_id": call_id,
                "max_output_length": max_output,
                "output": chunks,
            }));
        }
        Ok(outputs)
    }
}

fn truncate(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_string()
}

/// The local trial: a private `/mnt/data` with the source → the responses loop, running each
/// shell call in the jail → the six files copied into `bundle/`.
pub(super) async fn work(
    plan: &Plan,
    api: &Client,
    dir: &Path,
    line: &TrialLine,
    done: &mut Progressed,
) -> Result<(), String> {
    let jail =
        Jail::locate().map_err(|e| format!("the local environment needs its sandbox: {e}"))?;
    let scratch =
        ScratchDir::new().map_err(|e| format!("cannot make the sandbox's /mnt/data: {e}"))?;
    std::fs::write(scratch.path().join(&plan.source_name), &plan.source_bytes)
        .map_err(|e| format!("cannot copy the source into the sandbox: {e}"))?;
    let mut shell = Local {
        jail,
        data_dir: scratch.path().to_path_buf(),
    };
    converse(plan, api, line, done, &mut shell, Start::Fresh).await?;
    collect(plan, dir, line, done, scratch.path())?;
    done.resume = Some(repair::Resume::Local { shell, scratch });
    Ok(())
}

/// Copy the six files from the sandbox's `/mnt/data` (`data_dir`) into `bundle/`.
pub(crate) fn collect(
    plan: &Plan,
    dir: &Path,
    line: &TrialLine,
    done: &mut Progressed,
    data_dir: &Path,
) -> Result<(), String> {
    line.stage(Stage::Downloading);
    let bundle_dir = dir.join("bundle");
    let limit = plan.spec.limits.max_artifact_bytes;
    for name in plan.spec.artifacts.all() {
        let path = data_dir.join(name);
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        let mut rec = ArtifactRecord::listed(name, "", &format!("/mnt/data/{name}"), meta.len());
        match read_regular(&path, limit) {
            Ok(bytes) => {
                rec.bytes = bytes.len() as u64;
                rec.sha256 = Some(sha256_hex(&bytes));
                std::fs::write(bundle_dir.join(name), &bytes).map_err(|e| {
                    format!("cannot write `{}`: {e}", bundle_dir.join(name).display())
                })?;
            }
            Err(why) => rec.skipped = Some(format!("not collected: {why}")),
        }
        done.artifacts.push(rec);
    }
    done.downloaded = true;
    Ok(())
}

impl Local {
    /// The sandbox's `/mnt/data` on the host.
    pub(crate) fn data_dir(&self) -> &Path {
        &self.data_dir
    }
}
