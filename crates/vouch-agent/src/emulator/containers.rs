//! `/containers` and `/containers/{id}/files`: each container is a private directory holding the
//! uploads under a hex prefix; its file list is re-read from the directory (never following
//! symbolic links, bounded in count and depth) whenever it is asked for.

use super::files::binary;
use super::page::{paginate, ListQuery};
use super::{now, random_hex, Answer, ApiErr, Emulator};
use super::{Entry, StoredContainer, MAX_CONTAINER_FILES, MAX_DEPTH, MAX_UPLOAD_BYTES};
use crate::run::wire::{Container, ContainerFile, Deleted, ExpiresAfter, NetworkPolicy};
use axum::body::Bytes;
use axum::extract::{Path as UrlPath, Query, State};
use axum::response::IntoResponse;
use axum::Json;
use serde_json::Value;
use std::path::Path;

pub(super) fn parse_json_object(body: &Bytes) -> Result<serde_json::Map<String, Value>, ApiErr> {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(ApiErr::invalid(
            "body",
            "The request body must be a JSON object.",
        )),
        Err(e) => Err(ApiErr::invalid(
            "body",
            format!("We could not parse the JSON body of your request: {e}"),
        )),
    }
}

pub(super) async fn create_container(State(emu): State<Emulator>, body: Bytes) -> Answer {
    let body = parse_json_object(&body)?;
    let name = match body.get("name") {
        Some(Value::String(s)) => s.clone(),
        Some(_) => {
            return Err(ApiErr::invalid(
                "name",
                "Invalid type for 'name': expected a string.",
            ))
        }
        None => return Err(ApiErr::missing("name")),
    };
    let settings = ContainerSettings::parse(&body, "")?;
    let expires_after = match body.get("expires_after") {
        None | Some(Value::Null) => ExpiresAfter {
            anchor: "last_active_at".into(),
            minutes: 20,
        },
        Some(v) => {
            let anchor = v.get("anchor").and_then(Value::as_str);
            let minutes = v.get("minutes").and_then(Value::as_i64);
            match (anchor, minutes) {
                (Some("last_active_at"), Some(m)) if (1..=1440).contains(&m) => ExpiresAfter {
                    anchor: "last_active_at".into(),
                    minutes: m,
                },
                _ => {
                    return Err(ApiErr::invalid(
                        "expires_after",
                        "Expected {\"anchor\": \"last_active_at\", \"minutes\": 1..1440}.",
                    ))
                }
            }
        }
    };
    let object = make_container(&emu, name, settings, expires_after)?;
    Ok(Json(object).into_response())
}

/// What a container is created with (`POST /containers`, or a shell tool's `container_auto`
/// environment): the uploads copied in, the memory limit and the network policy.
pub(super) struct ContainerSettings {
    file_ids: Vec<String>,
    memory_limit: String,
    network_policy: NetworkPolicy,
}

impl ContainerSettings {
    /// From a request object; `at` prefixes the parameter names errors name
    /// (`tools[0].environment.`).
    pub(super) fn parse(
        body: &serde_json::Map<String, Value>,
        at: &str,
    ) -> Result<ContainerSettings, ApiErr> {
        let file_ids: Vec<String> = match body.get("file_ids") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(a)) => a
                .iter()
                .map(|v| v.as_str().map(str::to_string))
                .collect::<Option<_>>()
                .ok_or_else(|| {
                    ApiErr::invalid(
                        &format!("{at}file_ids"),
                        "Invalid type for 'file_ids': expected an array of strings.",
                    )
                })?,
            Some(_) => {
                return Err(ApiErr::invalid(
                    &format!("{at}file_ids"),
                    "Invalid type for 'file_ids': expected an array of strings.",
                ))
            }
        };
        let memory_limit = match body.get("memory_limit") {
            None | Some(Value::Null) => "1g".to_string(),
            Some(Value::String(s)) if ["1g", "4g", "16g", "64g"].contains(&s.as_str()) => s.clone(),
            Some(v) => {
                return Err(ApiErr::invalid(
                    &format!("{at}memory_limit"),
                    format!(
                        "Invalid 'memory_limit': {v}. Expected one of '1g', '4g', '16g', '64g'."
                    ),
                ))
            }
        };
        let network_policy = match body.get("network_policy") {
            None | Some(Value::Null) => NetworkPolicy::disabled(),
            Some(v) => network_policy(v)?,
        };
        Ok(ContainerSettings {
            file_ids,
            memory_limit,
            network_policy,
        })
    }
}

/// A running container: the uploads copied in under a hex prefix, as the hosted containers do.
pub(super) fn make_container(
    emu: &Emulator,
    name: String,
    settings: ContainerSettings,
    expires_after: ExpiresAfter,
) -> Result<Container, ApiErr> {
    let ContainerSettings {
        file_ids,
        memory_limit,
        network_policy,
    } = settings;
    let id = format!("cntr_{}", random_hex(48));
    let dir = emu.shared.root.join(&id);
    let created_at = now();
    // Copy the uploads in under a hex prefix, as the hosted containers do.
    let mut store = emu.store();
    let mut uploads = Vec::new();
    for fid in &file_ids {
        let f = store
            .files
            .iter()
            .find(|f| &f.object.id == fid)
            .ok_or_else(|| ApiErr::invalid("file_ids", format!("No such File object: {fid}")))?;
        uploads.push((
            format!("{}-{}", random_hex(32), f.object.filename),
            f.bytes.clone(),
        ));
    }
    std::fs::create_dir_all(&dir)
        .map_err(|e| ApiErr::server(format!("cannot create the container directory: {e}")))?;
    let mut entries = Vec::new();
    for (rel, bytes) in uploads {
        if let Err(e) = std::fs::write(dir.join(&rel), bytes.as_slice()) {
            let _ = std::fs::remove_dir_all(&dir);
            return Err(ApiErr::server(format!(
                "cannot copy a file into the container: {e}"
            )));
        }
        entries.push(Entry {
            id: format!("cfile_{}", random_hex(48)),
            rel,
            created_at,
            bytes: bytes.len() as u64,
            source: "user",
        });
    }
    let object = Container {
        id: id.clone(),
        object: "container".into(),
        created_at,
        name,
        status: "running".into(),
        expires_after: Some(expires_after),
        last_active_at: Some(created_at),
        memory_limit: Some(memory_limit),
        network_policy: Some(network_policy),
    };
    store.containers.push(StoredContainer {
        object: object.clone(),
        dir,
        files: entries,
    });
    Ok(object)
}

pub(super) fn network_policy(v: &Value) -> Result<NetworkPolicy, ApiErr> {
    match v.get("type").and_then(Value::as_str) {
        Some("disabled") => Ok(NetworkPolicy::disabled()),
        Some("allowlist") => {
            let domains: Option<Vec<String>> = v
                .get("allowed_domains")
                .and_then(Value::as_array)
                .and_then(|a| a.iter().map(|d| d.as_str().map(str::to_string)).collect());
            match domains {
                Some(d) if !d.is_empty() => Ok(NetworkPolicy {
                    kind: "allowlist".into(),
                    allowed_domains: Some(d),
                }),
                _ => Err(ApiErr::invalid(
                    "network_policy.allowed_domains",
                    "An allowlist network policy needs a non-empty 'allowed_domains'.",
                )),
            }
        }
        _ => Err(ApiErr::invalid(
            "network_policy.type",
            "Invalid 'network_policy.type': expected 'disabled' or 'allowlist'.",
        )),
    }
}

pub(super) async fn list_containers(
    State(emu): State<Emulator>,
    Query(q): Query<ListQuery>,
) -> Answer {
    let items: Vec<Container> = emu
        .store()
        .containers
        .iter()
        .filter(|c| q.name.as_deref().is_none_or(|n| c.object.name == n))
        .map(|c| c.object.clone())
        .collect();
    paginate(items, |c| &c.id, &q, 20, 100)
}

pub(super) async fn get_container(
    State(emu): State<Emulator>,
    UrlPath(id): UrlPath<String>,
) -> Answer {
    let store = emu.store();
    let c = store
        .containers
        .iter()
        .find(|c| c.object.id == id)
        .ok_or_else(|| ApiErr::not_found("Container", &id))?;
    Ok(Json(c.object.clone()).into_response())
}

pub(super) async fn delete_container(
    State(emu): State<Emulator>,
    UrlPath(id): UrlPath<String>,
) -> Answer {
    let removed = {
        let mut store = emu.store();
        let at = store
            .containers
            .iter()
            .position(|c| c.object.id == id)
            .ok_or_else(|| ApiErr::not_found("Container", &id))?;
        store.containers.remove(at)
    };
    // The data goes with the container.
    let _ = std::fs::remove_dir_all(&removed.dir);
    Ok(Json(Deleted {
        id,
        object: "container.deleted".into(),
        deleted: true,
    })
    .into_response())
}

/// Re-read a container's directory: new files get ids (source `assistant`), gone ones are dropped.
pub(super) fn refresh(c: &mut StoredContainer) {
    let mut found = Vec::new();
    walk(&c.dir, "", 0, &mut found);
    let now = now();
    c.files
        .retain(|e| found.iter().any(|(rel, _)| rel == &e.rel));
    for (rel, bytes) in found {
        match c.files.iter_mut().find(|e| e.rel == rel) {
            Some(e) => e.bytes = bytes,
            None => c.files.push(Entry {
                id: format!("cfile_{}", random_hex(48)),
                rel,
                created_at: now,
                bytes,
                source: "assistant",
            }),
        }
    }
}

/// Regular files under `dir` (never following symbolic links), bounded in count and depth.
pub(super) fn walk(dir: &Path, prefix: &str, depth: usize, found: &mut Vec<(String, u64)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        if found.len() >= MAX_CONTAINER_FILES {
            return;
        }
        let Ok(meta) = std::fs::symlink_metadata(entry.path()) else {
            continue;
        };
        let name = entry.file_name().to_string_lossy().into_owned();
        let rel = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        if meta.is_file() {
            found.push((rel, meta.len()));
        } else if meta.is_dir() && depth < MAX_DEPTH {
            walk(&entry.path(), &rel, depth + 1, found);
        }
    }
}

pub(super) fn container_file(c: &StoredContainer, e: &Entry) -> ContainerFile {
    ContainerFile {
        id: e.id.clone(),
        object: "container.file".into(),
        created_at: e.created_at,
        bytes: e.bytes,
        container_id: c.object.id.clone(),
        path: format!("/mnt/data/{}", e.rel),
        source: e.source.into(),
    }
}

pub(super) fn with_container<T>(
    emu: &Emulator,
    id: &str,
    f: impl FnOnce(&mut StoredContainer) -> Result<T, ApiErr>,
) -> Result<T, ApiErr> {
    let mut store = emu.store();
    let c = store
        .containers
        .iter_mut()
        .find(|c| c.object.id == id)
        .ok_or_else(|| ApiErr::not_found("Container", id))?;
    f(c)
}

pub(super) async fn list_container_files(
    State(emu): State<Emulator>,
    UrlPath(id): UrlPath<String>,
    Query(q): Query<ListQuery>,
) -> Answer {
    let items = with_container(&emu, &id, |c| {
        refresh(c);
        Ok(c.files
            .iter()
            .map(|e| container_file(c, e))
            .collect::<Vec<_>>())
    })?;
    paginate(items, |f| &f.id, &q, 20, 100)
}

pub(super) async fn get_container_file(
    State(emu): State<Emulator>,
    UrlPath((id, fid)): UrlPath<(String, String)>,
) -> Answer {
    let file = with_container(&emu, &id, |c| {
        refresh(c);
        let e = c
            .files
            .iter()
            .find(|e| e.id == fid)
            .ok_or_else(|| ApiErr::not_found("ContainerFile", &fid))?;
        Ok(container_file(c, e))
    })?;
    Ok(Json(file).into_response())
}

pub(super) async fn container_file_content(
    State(emu): State<Emulator>,
    UrlPath((id, fid)): UrlPath<(String, String)>,
) -> Answer {
    let path = with_container(&emu, &id, |c| {
        refresh(c);
        let e = c
            .files
            .iter()
            .find(|e| e.id == fid)
            .ok_or_else(|| ApiErr::not_found("ContainerFile", &fid))?;
        Ok(c.dir.join(&e.rel))
    })?;
    let bytes = read_no_follow(&path)
        .map_err(|e| ApiErr::not_found("ContainerFile", &format!("{fid} ({e})")))?;
    Ok(binary(bytes))
}

pub(super) async fn delete_container_file(
    State(emu): State<Emulator>,
    UrlPath((id, fid)): UrlPath<(String, String)>,
) -> Answer {
    with_container(&emu, &id, |c| {
        refresh(c);
        let at = c
            .files
            .iter()
            .position(|e| e.id == fid)
            .ok_or_else(|| ApiErr::not_found("ContainerFile", &fid))?;
        let e = c.files.remove(at);
        let _ = std::fs::remove_file(c.dir.join(&e.rel));
        Ok(())
    })?;
    Ok(Json(Deleted {
        id: fid,
        object: "container.file.deleted".into(),
        deleted: true,
    })
    .into_response())
}

/// Read a regular file without following a symbolic link the agent may have planted.
pub(super) fn read_no_follow(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut bytes = Vec::new();
    file.by_ref()
        .take(MAX_UPLOAD_BYTES as u64 * 4)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}
