//! `run.json` (schema `vouch.run`, version 1), the record of one run, exactly as `docs/runs.md`
//! defines it, plus two fields readers may ignore (`api_base_url`, `artifacts`).

use super::wire::Usage;
use serde::{Deserialize, Serialize};
use std::time::{SystemTime, UNIX_EPOCH};

pub const SCHEMA: &str = "vouch.run";
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// The model finished with a final message.
    Completed,
    /// The model stopped early (an `incomplete` response, or no final message within max turns).
    Incomplete,
    /// The API reported the response failed.
    Failed,
    /// vouch could not finish the run (upload, container, download, interruption…).
    Error,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Completed => "completed",
            RunStatus::Incomplete => "incomplete",
            RunStatus::Failed => "failed",
            RunStatus::Error => "error",
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceRef {
    pub file_name: String,
    pub sha256: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ids {
    pub file_id: Option<String>,
    pub container_id: Option<String>,
    pub response_ids: Vec<String>,
    /// The Agents API session (`--environment agents-api`); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
}

/// What the clean-up achieved. `container_deleted`/`file_deleted` say "nothing of this kind is
/// left behind": true also when none was ever created, or the API said it was already gone (404).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cleanup {
    pub container_deleted: bool,
    pub file_deleted: bool,
    pub errors: Vec<String>,
    /// `--keep` was given: nothing was deleted on purpose.
    #[serde(default)]
    pub kept: bool,
    /// The Agents API session is gone (`--environment agents-api`); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_deleted: Option<bool>,
}

/// One downloaded (or skipped) artifact.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArtifactRecord {
    pub name: String,
    pub container_file_id: String,
    pub path: String,
    pub bytes: u64,
    pub sha256: Option<String>,
    /// Why it was not written to `bundle/` (e.g. over the size limit).
    pub skipped: Option<String>,
}

impl ArtifactRecord {
    /// Artifact `name` as the API listed it (its id, path and size), not yet downloaded.
    pub fn listed(name: &str, id: &str, path: &str, bytes: u64) -> ArtifactRecord {
        ArtifactRecord {
            name: name.to_string(),
            container_file_id: id.to_string(),
            path: path.to_string(),
            bytes,
            sha256: None,
            skipped: None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    pub schema: String,
    pub schema_version: u32,
    pub run_id: String,
    pub label: String,
    pub trial: u32,
    pub model: String,
    pub prompt_sha256: String,
    pub source: SourceRef,
    pub started_at: String,
    pub finished_at: String,
    pub status: RunStatus,
    pub usage: Usage,
    pub turns: u32,
    pub ids: Ids,
    pub request_ids: Vec<String>,
    pub cleanup: Cleanup,
    pub error: Option<String>,
    pub verdict: Option<String>,
    pub api_base_url: String,
    /// How the agent's sandbox was made: `reference` (vouch created the container; the
    /// tutorial's flow), `auto` (`container_auto`), `local` (vouch's jail) or `agents-api` (an
    /// Agents API session). Absent in run.json files written before it was recorded, which were
    /// all `reference`.
    #[serde(default = "reference")]
    pub environment: String,
    pub artifacts: Vec<ArtifactRecord>,
    /// Every verification of `--repair` (round 0 the first pass); absent without `--repair`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rounds: Vec<Round>,
}

/// One verification round of `vouch run --repair`: round 0 is the first pass, each later one
/// follows a repair prompt.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Round {
    pub round: u32,
    /// `accept` or `reject` (a changed source rejects).
    pub verdict: String,
    /// The ids of the checks that failed, each once.
    pub failing: Vec<String>,
    /// Tokens and model turns the round took (the first pass's own, then each repair's).
    pub usage: Usage,
    pub turns: u32,
    pub seconds: f64,
    /// Whether the sandbox still held the source as uploaded; null when vouch cannot read it
    /// there (an Agents API session's workspace).
    pub source_intact: Option<bool>,
}

fn reference() -> String {
    "reference".into()
}

/// `run_<utc timestamp>_<8 hex>`, e.g. `run_20250101T120000Z_1a2b3c4d`.
pub fn new_run_id(at: SystemTime) -> String {
    let (y, mo, d, h, mi, s) = civil(at);
    format!(
        "run_{y:04}{mo:02}{d:02}T{h:02}{mi:02}{s:02}Z_{}",
        super::random_hex(8)
    )
}

/// RFC 3339 UTC with seconds, e.g. `2025-01-01T12:00:00Z`.
pub fn rfc3339(at: SystemTime) -> String {
    let (y, mo, d, h, mi, s) = civil(at);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z")
}

/// Calendar date and time (UTC) of a system time (Howard Hinnant's days-to-civil).
fn civil(at: SystemTime) -> (i64, u32, u32, u32, u32, u32) {
    let secs = at
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (
        y,
        m,
        d,
        (rem / 3600) as u32,
        (rem % 3600 / 60) as u32,
        (rem % 60) as u32,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn formats_utc_timestamps() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        let t = UNIX_EPOCH + Duration::from_secs(1_709_210_096); // a leap day
        assert_eq!(rfc3339(t), "2024-02-29T12:34:56Z");
        let t = UNIX_EPOCH + Duration::from_secs(951_782_400); // 2000-02-29
        assert_eq!(rfc3339(t), "2000-02-29T00:00:00Z");
    }

    #[test]
    fn run_ids_carry_the_timestamp_and_eight_hex_digits() {
        let id = new_run_id(UNIX_EPOCH + Duration::from_secs(1_709_210_096));
        assert!(id.starts_with("run_20240229T123456Z_"), "{id}");
        let suffix = id.rsplit('_').next().unwrap();
        assert_eq!(suffix.len(), 8);
        assert!(suffix.bytes().all(|b| b.is_ascii_hexdigit()));
    }

    #[test]
    fn status_serialises_lowercase() {
        assert_eq!(
            serde_json::to_string(&RunStatus::Incomplete).unwrap(),
            "\"incomplete\""
        );
    }
}
