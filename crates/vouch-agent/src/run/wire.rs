//! The JSON shapes of the OpenAI endpoints a hosted-sandbox run uses (files, containers, container
//! files, responses), shared by the client and the emulator.
//!
//! Limits: only the fields this workflow needs are typed; everything else is optional, and output
//! items of unknown types are kept as raw JSON so a newer API never breaks a run.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `{"error": {...}}`, the body of every non-2xx answer.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ErrorDetail {
    pub message: String,
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    #[serde(default)]
    pub param: Option<String>,
    #[serde(default)]
    pub code: Option<String>,
}

/// `POST /files`, `GET /files/{id}`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FileObject {
    pub id: String,
    #[serde(default = "object_file")]
    pub object: String,
    pub bytes: u64,
    pub created_at: i64,
    pub filename: String,
    pub purpose: String,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub expires_at: Option<i64>,
    #[serde(default)]
    pub status_details: Option<String>,
}

fn object_file() -> String {
    "file".into()
}

/// `DELETE /files/{id}` (and the emulator's other deletions).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Deleted {
    pub id: String,
    pub object: String,
    pub deleted: bool,
}

/// `{"type":"disabled"}` or `{"type":"allowlist","allowed_domains":[...]}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetworkPolicy {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_domains: Option<Vec<String>>,
}

impl NetworkPolicy {
    pub fn disabled() -> NetworkPolicy {
        NetworkPolicy {
            kind: "disabled".into(),
            allowed_domains: None,
        }
    }
}

/// `POST /containers` body. Fields not given are omitted, as the SDK does.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ContainerCreate {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_ids: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_limit: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network_policy: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_after: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skills: Option<Value>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExpiresAfter {
    pub anchor: String,
    pub minutes: i64,
}

/// A container as created, retrieved and listed.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Container {
    pub id: String,
    pub object: String,
    pub created_at: i64,
    pub name: String,
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_after: Option<ExpiresAfter>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_active_at: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_limit: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network_policy: Option<NetworkPolicy>,
}

/// A file inside a container (`/mnt/data/...`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ContainerFile {
    pub id: String,
    pub object: String,
    pub created_at: i64,
    pub bytes: u64,
    pub container_id: String,
    pub path: String,
    pub source: String,
}

/// An artifact of an Agents API session: a file a completed turn published from
/// `/workspace/outputs` (`path` is where it was).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SessionArtifact {
    pub id: String,
    pub path: String,
    #[serde(default)]
    pub size_bytes: u64,
    #[serde(default)]
    pub created_at: i64,
    #[serde(default)]
    pub turn_id: Option<String>,
}

/// A cursor page: `{"object":"list","data":[...],"first_id","last_id","has_more"}`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Page<T> {
    pub object: String,
    pub data: Vec<T>,
    #[serde(default)]
    pub first_id: Option<String>,
    #[serde(default)]
    pub last_id: Option<String>,
    /// Missing means "keep paging while data is non-empty", as the SDK reads it.
    #[serde(default)]
    pub has_more: Option<bool>,
}

/// Token usage of one response.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub total_tokens: u64,
}

/// What `self` adds to an earlier `other` (each count at least 0).
impl std::ops::Sub for Usage {
    type Output = Usage;
    fn sub(self, other: Usage) -> Usage {
        Usage {
            input_tokens: self.input_tokens.saturating_sub(other.input_tokens),
            output_tokens: self.output_tokens.saturating_sub(other.output_tokens),
            total_tokens: self.total_tokens.saturating_sub(other.total_tokens),
        }
    }
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.total_tokens += other.total_tokens;
    }
}

/// The parts of a `/responses` answer a run needs; `output` items stay raw JSON (see
/// [`OutputItem::classify`]) so they can be replayed verbatim as history.
#[derive(Clone, Debug, Deserialize)]
pub struct Response {
    pub id: String,
    pub status: Option<String>,
    #[serde(default)]
    pub output: Vec<Value>,
    #[serde(default)]
    pub error: Option<Value>,
    #[serde(default)]
    pub incomplete_details: Option<Value>,
    #[serde(default)]
    pub usage: Option<Value>,
}

impl Response {
    /// Usage with the optional detail objects ignored; absent counts are zero.
    pub fn usage(&self) -> Usage {
        let n = |k: &str| {
            self.usage
                .as_ref()
                .and_then(|u| u.get(k))
                .and_then(Value::as_u64)
                .unwrap_or(0)
        };
        Usage {
            input_tokens: n("input_tokens"),
            output_tokens: n("output_tokens"),
            total_tokens: n("total_tokens"),
        }
    }

    /// The kinds of the output items, in order.
    pub fn kinds(&self) -> impl Iterator<Item = OutputKind> + '_ {
        self.output.iter().map(OutputKind::of)
    }

    pub fn has_assistant_message(&self) -> bool {
        self.kinds().any(|k| k == OutputKind::Message)
    }

    /// The container the response's shell calls ran in (`environment.container_id`), if any.
    pub fn shell_container(&self) -> Option<String> {
        self.output
            .iter()
            .filter(|i| OutputKind::of(i) == OutputKind::ShellCall)
            .find_map(|i| {
                i.get("environment")?
                    .get("container_id")?
                    .as_str()
                    .filter(|c| !c.is_empty())
                    .map(str::to_string)
            })
    }

    pub fn has_shell_activity(&self) -> bool {
        self.kinds()
            .any(|k| matches!(k, OutputKind::ShellCall | OutputKind::ShellCallOutput))
    }

    /// The concatenated `output_text` of every assistant message (what the SDK calls
    /// `output_text`; it is not on the wire).
    pub fn output_text(&self) -> String {
        let mut text = String::new();
        for item in &self.output {
            if OutputKind::of(item) != OutputKind::Message {
                continue;
            }
            for part in item
                .get("content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if part.get("type").and_then(Value::as_str) == Some("output_text") {
                    if let Some(t) = part.get("text").and_then(Value::as_str) {
                        text.push_str(t);
                    }
                }
            }
        }
        text
    }
}

/// The discriminant of an output item; anything unknown is `Other`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputKind {
    Message,
    ShellCall,
    ShellCallOutput,
    Reasoning,
    Other,
}

impl OutputKind {
    pub fn of(item: &Value) -> OutputKind {
        match item.get("type").and_then(Value::as_str) {
            Some("message") if item.get("role").and_then(Value::as_str) != Some("user") => {
                OutputKind::Message
            }
            Some("shell_call") => OutputKind::ShellCall,
            Some("shell_call_output") => OutputKind::ShellCallOutput,
            Some("reasoning") => OutputKind::Reasoning,
            _ => OutputKind::Other,
        }
    }
}

/// An output item as the Agents SDK replays it in the next turn's `input`: `status` and every
/// `created_by` (including the one inside each shell output chunk) stripped.
pub fn replayable(item: &Value) -> Value {
    let mut item = item.clone();
    if let Some(obj) = item.as_object_mut() {
        if matches!(
            OutputKind::of(&Value::Object(obj.clone())),
            OutputKind::ShellCall | OutputKind::ShellCallOutput
        ) {
            obj.remove("status");
        }
        obj.remove("created_by");
        if let Some(Value::Array(chunks)) = obj.get_mut("output") {
            for chunk in chunks {
                if let Some(c) = chunk.as_object_mut() {
                    c.remove("created_by");
                }
            }
        }
    }
    item
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn replay_strips_status_and_every_created_by() {
        let item = json!({"type":"shell_call_output","id":"sho_1","call_id":"call_1",
            "status":"completed","created_by":"x",
            "output":[{"stdout":"a","stderr":"","outcome":{"type":"exit","exit_code":0},"created_by":"y"}]});
        let replayed = replayable(&item);
        assert_eq!(
            replayed,
            json!({"type":"shell_call_output","id":"sho_1","call_id":"call_1",
                "output":[{"stdout":"a","stderr":"","outcome":{"type":"exit","exit_code":0}}]})
        );
    }

    #[test]
    fn a_user_message_is_not_an_assistant_message() {
        assert_eq!(
            OutputKind::of(&json!({"type":"message","role":"user","content":"x"})),
            OutputKind::Other
        );
        assert_eq!(
            OutputKind::of(&json!({"type":"message","role":"assistant","content":[]})),
            OutputKind::Message
        );
    }

    #[test]
    fn usage_ignores_detail_objects_and_defaults_to_zero() {
        let r: Response = serde_json::from_value(json!({"id":"resp_1","status":"completed",
            "output":[],"usage":{"input_tokens":3,"input_tokens_details":{"cached_tokens":0},
            "output_tokens":4,"total_tokens":7}}))
        .unwrap();
        assert_eq!(
            r.usage(),
            Usage {
                input_tokens: 3,
                output_tokens: 4,
                total_tokens: 7
            }
        );
    }
}
