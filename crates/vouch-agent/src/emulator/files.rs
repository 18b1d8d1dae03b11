//! `/files`: multipart upload, retrieve, list, content and delete; the bytes are kept in memory.

use super::page::{paginate, ListQuery};
use super::{now, random_alnum, Answer, ApiErr, Emulator, StoredFile, MAX_UPLOAD_BYTES};
use crate::run::wire::{Deleted, FileObject};
use axum::body::Bytes;
use axum::extract::{Multipart, Path as UrlPath, Query, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::Json;
use std::sync::Arc;

pub(super) async fn upload_file(
    State(emu): State<Emulator>,
    multipart: Result<Multipart, axum::extract::multipart::MultipartRejection>,
) -> Answer {
    let mut multipart = multipart.map_err(|e| {
        ApiErr::invalid("file", format!("Expected a multipart/form-data body: {e}"))
    })?;
    let mut purpose = None;
    let mut file: Option<(String, Bytes)> = None;
    let mut expires_seconds: Option<i64> = None;
    let mut expires_anchor: Option<String> = None;
    loop {
        let field = match multipart.next_field().await {
            Ok(Some(f)) => f,
            Ok(None) => break,
            Err(e) => {
                return Err(ApiErr::invalid(
                    "file",
                    format!("Malformed multipart body: {e}"),
                ))
            }
        };
        let name = field.name().unwrap_or("").to_string();
        let file_name = field.file_name().map(str::to_string);
        let data = field
            .bytes()
            .await
            .map_err(|e| ApiErr::invalid(&name, format!("Cannot read part '{name}': {e}")))?;
        match name.as_str() {
            "purpose" => purpose = Some(String::from_utf8_lossy(&data).into_owned()),
            "file" => file = Some((file_name.unwrap_or_default(), data)),
            "expires_after[seconds]" => {
                expires_seconds =
                    Some(String::from_utf8_lossy(&data).trim().parse().map_err(|_| {
                        ApiErr::invalid("expires_after[seconds]", "Expected an integer.")
                    })?)
            }
            "expires_after[anchor]" => {
                expires_anchor = Some(String::from_utf8_lossy(&data).into_owned())
            }
            _ => {}
        }
    }
    let purpose = purpose.ok_or_else(|| ApiErr::missing("purpose"))?;
    const PURPOSES: [&str; 6] = [
        "assistants",
        "batch",
        "fine-tune",
        "vision",
        "user_data",
        "evals",
    ];
    if !PURPOSES.contains(&purpose.as_str()) {
        return Err(ApiErr::invalid(
            "purpose",
            format!(
                "Invalid 'purpose': '{purpose}'. Expected one of {}.",
                PURPOSES.join(", ")
            ),
        ));
    }
    let (file_name, data) = file.ok_or_else(|| ApiErr::missing("file"))?;
    if data.len() > MAX_UPLOAD_BYTES {
        return Err(ApiErr::invalid(
            "file",
            format!("File is larger than the emulator's {MAX_UPLOAD_BYTES}-byte limit."),
        ));
    }
    let file_name = sanitize_name(&file_name);
    if let Some(anchor) = &expires_anchor {
        if anchor != "created_at" {
            return Err(ApiErr::invalid(
                "expires_after[anchor]",
                "Expected 'created_at'.",
            ));
        }
    }
    if let Some(s) = expires_seconds {
        if !(3600..=2_592_000).contains(&s) {
            return Err(ApiErr::invalid(
                "expires_after[seconds]",
                "Expected between 3600 and 2592000 seconds.",
            ));
        }
    }
    let created_at = now();
    let object = FileObject {
        id: format!("file-{}", random_alnum(22)),
        object: "file".into(),
        bytes: data.len() as u64,
        created_at,
        filename: file_name,
        purpose,
        status: Some("processed".into()),
        expires_at: expires_seconds.map(|s| created_at + s),
        status_details: None,
    };
    emu.store().files.push(StoredFile {
        object: object.clone(),
        bytes: Arc::new(data.to_vec()),
    });
    Ok(Json(object).into_response())
}

/// A base name safe to create in a container directory.
pub(super) fn sanitize_name(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or("");
    let clean: String = base
        .chars()
        .map(|c| if c.is_control() { '_' } else { c })
        .collect();
    if clean.is_empty() || clean == "." || clean == ".." {
        "upload".into()
    } else {
        clean
    }
}

pub(super) async fn list_files(State(emu): State<Emulator>, Query(q): Query<ListQuery>) -> Answer {
    let files: Vec<FileObject> = emu
        .store()
        .files
        .iter()
        .filter(|f| q.purpose.as_deref().is_none_or(|p| f.object.purpose == p))
        .map(|f| f.object.clone())
        .collect();
    paginate(files, |f| &f.id, &q, 10_000, 10_000)
}

pub(super) async fn get_file(State(emu): State<Emulator>, UrlPath(id): UrlPath<String>) -> Answer {
    let store = emu.store();
    let f = store
        .files
        .iter()
        .find(|f| f.object.id == id)
        .ok_or_else(|| ApiErr::not_found("File", &id))?;
    Ok(Json(f.object.clone()).into_response())
}

pub(super) async fn file_content(
    State(emu): State<Emulator>,
    UrlPath(id): UrlPath<String>,
) -> Answer {
    let bytes = {
        let store = emu.store();
        let f = store
            .files
            .iter()
            .find(|f| f.object.id == id)
            .ok_or_else(|| ApiErr::not_found("File", &id))?;
        f.bytes.clone()
    };
    Ok(binary(bytes.to_vec()))
}

pub(super) async fn delete_file(
    State(emu): State<Emulator>,
    UrlPath(id): UrlPath<String>,
) -> Answer {
    let mut store = emu.store();
    let at = store
        .files
        .iter()
        .position(|f| f.object.id == id)
        .ok_or_else(|| ApiErr::not_found("File", &id))?;
    store.files.remove(at);
    Ok(Json(Deleted {
        id,
        object: "file".into(),
        deleted: true,
    })
    .into_response())
}

pub(super) fn binary(bytes: Vec<u8>) -> Response {
    ([(header::CONTENT_TYPE, "application/octet-stream")], bytes).into_response()
}
