//! A local emulator of the OpenAI endpoints a hosted-sandbox run uses, faithful to the wire facts
//! (`shared/docs/openai-api.md`): files, containers, container files and `/responses`, under
//! `/v1`, with in-memory state, the `{"error": {...}}` body and status codes, cursor pagination,
//! ids in the real formats, `x-request-id` on every answer, and a scripted agent (see [`agent`])
//! that runs a playbook's shell commands for real in each container's private directory under
//! bubblewrap (see [`crate::sandbox`]). Faults can be injected (see [`fault`]).
//!
//! Limits: one process, state lost on exit; uploads are capped at 64 MiB; container directories
//! live under the system temp directory and are removed with their container (and when the
//! emulator is dropped). Streaming and background responses are not emulated.

pub mod agent;
pub mod fault;

use crate::run::wire::{
    Container, ContainerFile, Deleted, ExpiresAfter, FileObject, NetworkPolicy,
};
use crate::sandbox::Sandbox;
use agent::Playbook;
use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, Multipart, Path as UrlPath, Query, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use fault::{Fault, FaultKind, When};
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const MAX_UPLOAD_BYTES: usize = 64 << 20;
/// Files a container listing walks at most (and directory depth), so a runaway agent cannot make
/// a listing unbounded.
const MAX_CONTAINER_FILES: usize = 10_000;
const MAX_DEPTH: usize = 16;

/// How the emulator behaves.
#[derive(Clone, Debug)]
pub struct Config {
    pub playbook: Playbook,
    pub faults: Vec<Fault>,
    /// The delay of the `slow` fault.
    pub slow: Duration,
    /// The delay a 429 asks for (`retry-after-ms`).
    pub retry_after: Duration,
}

impl Config {
    pub fn new(playbook: Playbook) -> Config {
        Config {
            playbook,
            faults: Vec::new(),
            slow: Duration::from_secs(5),
            retry_after: Duration::from_millis(200),
        }
    }
}

/// A handle on the emulator's state (cheap to clone); [`Emulator::router`] serves it.
#[derive(Clone)]
pub struct Emulator {
    shared: Arc<Shared>,
}

struct Shared {
    state: Mutex<Store>,
    faults: Mutex<Vec<(Fault, bool)>>,
    config: Config,
    sandbox: Option<Sandbox>,
    root: PathBuf,
}

impl Drop for Shared {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

#[derive(Default)]
struct Store {
    files: Vec<StoredFile>,
    containers: Vec<StoredContainer>,
    responses: HashMap<String, StoredResponse>,
    /// shell call id → the turn that made it, to tell which turn a replayed history asks for.
    call_turns: HashMap<String, usize>,
}

struct StoredFile {
    object: FileObject,
    bytes: Arc<Vec<u8>>,
}

struct StoredContainer {
    object: Container,
    dir: PathBuf,
    files: Vec<Entry>,
}

/// A file of a container, by path relative to its directory.
struct Entry {
    id: String,
    rel: String,
    created_at: i64,
    bytes: u64,
    source: &'static str,
}

struct StoredResponse {
    body: Value,
    turn: usize,
}

/// A running emulator on a socket.
pub struct Running {
    pub addr: SocketAddr,
    pub emulator: Emulator,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl Running {
    /// The base URL to give a client (`OPENAI_BASE_URL`).
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    pub async fn stop(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum EmulatorError {
    #[error("cannot prepare the emulator's directory `{0}`: {1}")]
    Root(String, String),
    #[error("cannot listen on {0}: {1}")]
    Bind(String, String),
}

impl Emulator {
    /// A fresh emulator; bubblewrap is located now (without it, `/responses` refuses to run
    /// commands, and every other endpoint works).
    pub fn new(config: Config) -> Result<Emulator, EmulatorError> {
        let root = std::env::temp_dir().join(format!(
            "vouch-emulator-{}-{}",
            std::process::id(),
            random_hex(8)
        ));
        std::fs::create_dir_all(&root)
            .map_err(|e| EmulatorError::Root(root.display().to_string(), e.to_string()))?;
        let faults = config.faults.iter().map(|f| (f.clone(), false)).collect();
        Ok(Emulator {
            shared: Arc::new(Shared {
                state: Mutex::new(Store::default()),
                faults: Mutex::new(faults),
                sandbox: Sandbox::locate().ok(),
                config,
                root,
            }),
        })
    }

    pub fn has_sandbox(&self) -> bool {
        self.shared.sandbox.is_some()
    }

    /// Replace the injected faults (tests switch them at run time).
    pub fn set_faults(&self, faults: Vec<Fault>) {
        *lock(&self.shared.faults) = faults.into_iter().map(|f| (f, false)).collect();
    }

    /// How many files and containers the emulator holds.
    pub fn counts(&self) -> (usize, usize) {
        let s = lock(&self.shared.state);
        (s.files.len(), s.containers.len())
    }

    /// Bind `addr` and serve in the background.
    pub async fn start(self, addr: &str) -> Result<Running, EmulatorError> {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| EmulatorError::Bind(addr.to_string(), e.to_string()))?;
        let local = listener
            .local_addr()
            .map_err(|e| EmulatorError::Bind(addr.to_string(), e.to_string()))?;
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let router = self.router();
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, router)
                .with_graceful_shutdown(async {
                    let _ = rx.await;
                })
                .await;
        });
        Ok(Running {
            addr: local,
            emulator: self,
            shutdown: Some(tx),
            task: Some(task),
        })
    }

    pub fn router(&self) -> Router {
        let v1 = Router::new()
            .route("/files", post(upload_file).get(list_files))
            .route("/files/{id}", get(get_file).delete(delete_file))
            .route("/files/{id}/content", get(file_content))
            .route("/containers", post(create_container).get(list_containers))
            .route(
                "/containers/{id}",
                get(get_container).delete(delete_container),
            )
            .route("/containers/{id}/files", get(list_container_files))
            .route(
                "/containers/{id}/files/{fid}",
                get(get_container_file).delete(delete_container_file),
            )
            .route(
                "/containers/{id}/files/{fid}/content",
                get(container_file_content),
            )
            .route("/responses", post(create_response))
            .route("/responses/{id}", get(get_response).delete(delete_response));
        Router::new()
            .nest("/v1", v1)
            .fallback(unknown_route)
            .layer(DefaultBodyLimit::max(MAX_UPLOAD_BYTES + (1 << 20)))
            .layer(axum::middleware::from_fn_with_state(self.clone(), gate))
            .with_state(self.clone())
    }

    fn store(&self) -> MutexGuard<'_, Store> {
        lock(&self.shared.state)
    }

    /// The faults that apply to this request; `once` faults are spent here.
    fn active_faults(
        &self,
        route: fault::Route,
        is_delete: bool,
        attempt: u32,
        from_header: Vec<Fault>,
    ) -> Vec<FaultKind> {
        let mut faults = lock(&self.shared.faults);
        let mut extra: Vec<(Fault, bool)> = from_header.into_iter().map(|f| (f, false)).collect();
        let mut kinds = Vec::new();
        for (f, spent) in faults.iter_mut().chain(extra.iter_mut()) {
            if !f.covers(route, is_delete) {
                continue;
            }
            let fires = match f.when {
                When::Always => true,
                When::First => attempt == 0,
                When::Once => !*spent,
            };
            if fires {
                *spent = true;
                kinds.push(f.kind);
            }
        }
        kinds
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A marker the `incomplete` fault leaves for the `/responses` handler.
#[derive(Clone, Copy)]
struct CutShort;

/// Authentication, faults, and the headers every answer carries.
async fn gate(State(emu): State<Emulator>, mut req: Request, next: Next) -> Response {
    let started = Instant::now();
    let request_id = format!("req_{}", random_hex(32));
    let authorized = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .is_some_and(|k| !k.trim().is_empty());
    let mut response = if !authorized {
        ApiErr::new(
            StatusCode::UNAUTHORIZED,
            "invalid_request_error",
            "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
        )
        .code("missing_api_key")
        .into_response()
    } else {
        let attempt = req
            .headers()
            .get("x-stainless-retry-count")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u32>().ok())
            .unwrap_or(0);
        let header_faults: Result<Vec<Fault>, _> = req
            .headers()
            .get("x-vouch-fault")
            .and_then(|v| v.to_str().ok())
            .map(|v| {
                v.split(',')
                    .filter(|s| !s.trim().is_empty())
                    .map(Fault::parse)
                    .collect()
            })
            .unwrap_or(Ok(Vec::new()));
        match header_faults {
            Err(e) => ApiErr::invalid("x-vouch-fault", e.to_string()).into_response(),
            Ok(header_faults) => {
                let route = fault::route_of(req.uri().path());
                let is_delete = req.method() == Method::DELETE;
                let kinds = emu.active_faults(route, is_delete, attempt, header_faults);
                match faulted(&emu, &kinds, &mut req).await {
                    Some(answer) => answer,
                    None => next.run(req).await,
                }
            }
        }
    };
    let headers = response.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&request_id) {
        headers.insert("x-request-id", v);
    }
    headers.insert("openai-version", HeaderValue::from_static("2020-10-01"));
    if let Ok(v) = HeaderValue::from_str(&started.elapsed().as_millis().to_string()) {
        headers.insert("openai-processing-ms", v);
    }
    response
}

/// Apply the faults that answer instead of the handler; `slow` waits, `incomplete` marks.
async fn faulted(emu: &Emulator, kinds: &[FaultKind], req: &mut Request) -> Option<Response> {
    if kinds.contains(&FaultKind::Drop) {
        // A body that fails at once: the connection is cut without a complete answer.
        let stream = futures_util::stream::once(async {
            Err::<Bytes, std::io::Error>(std::io::Error::other("connection dropped (fault)"))
        });
        return Some(Response::new(Body::from_stream(stream)));
    }
    if kinds.contains(&FaultKind::RateLimited) {
        let ms = emu.shared.config.retry_after.as_millis().max(1);
        let mut r = ApiErr::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limit_error",
            "Rate limit reached (injected fault). Please try again shortly.",
        )
        .code("rate_limit_exceeded")
        .into_response();
        if let Ok(v) = HeaderValue::from_str(&ms.to_string()) {
            r.headers_mut().insert("retry-after-ms", v);
        }
        if let Ok(v) = HeaderValue::from_str(&ms.div_ceil(1000).to_string()) {
            r.headers_mut().insert("retry-after", v);
        }
        return Some(r);
    }
    if kinds.contains(&FaultKind::ServerError) || kinds.contains(&FaultKind::DeleteFails) {
        return Some(
            ApiErr::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "server_error",
                "The server had an error while processing your request (injected fault).",
            )
            .into_response(),
        );
    }
    if kinds.contains(&FaultKind::Slow) {
        tokio::time::sleep(emu.shared.config.slow).await;
    }
    if kinds.contains(&FaultKind::Incomplete) {
        req.extensions_mut().insert(CutShort);
    }
    None
}

/// An error answer: `{"error": {"message", "type", "param", "code"}}`.
#[derive(Debug)]
pub struct ApiErr {
    status: StatusCode,
    kind: &'static str,
    message: String,
    param: Option<String>,
    code: Option<String>,
}

impl ApiErr {
    fn new(status: StatusCode, kind: &'static str, message: impl Into<String>) -> ApiErr {
        ApiErr {
            status,
            kind,
            message: message.into(),
            param: None,
            code: None,
        }
    }
    fn invalid(param: &str, message: impl Into<String>) -> ApiErr {
        ApiErr {
            param: Some(param.to_string()),
            ..ApiErr::new(StatusCode::BAD_REQUEST, "invalid_request_error", message)
        }
    }
    fn missing(param: &str) -> ApiErr {
        ApiErr::invalid(param, format!("Missing required parameter: '{param}'."))
    }
    fn not_found(what: &str, id: &str) -> ApiErr {
        ApiErr::new(
            StatusCode::NOT_FOUND,
            "invalid_request_error",
            format!("No such {what} object: {id}"),
        )
    }
    fn code(mut self, code: &str) -> ApiErr {
        self.code = Some(code.to_string());
        self
    }
    fn server(message: impl Into<String>) -> ApiErr {
        ApiErr::new(StatusCode::INTERNAL_SERVER_ERROR, "server_error", message)
    }
}

impl IntoResponse for ApiErr {
    fn into_response(self) -> Response {
        let body = json!({"error": {
            "message": self.message, "type": self.kind, "param": self.param, "code": self.code,
        }});
        (self.status, Json(body)).into_response()
    }
}

type Answer = Result<Response, ApiErr>;

async fn unknown_route(method: Method, uri: axum::http::Uri) -> ApiErr {
    ApiErr::new(
        StatusCode::NOT_FOUND,
        "invalid_request_error",
        format!("Invalid URL ({method} {})", uri.path()),
    )
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

pub use crate::run::{random_alnum, random_hex};

// ---------------------------------------------------------------------------------------------
// Pagination

#[derive(Debug, Default, Deserialize)]
struct ListQuery {
    after: Option<String>,
    limit: Option<String>,
    order: Option<String>,
    purpose: Option<String>,
    name: Option<String>,
}

/// One cursor page of `items` (given oldest first): `order` (default `desc`), `after` exclusive,
/// `limit` within `1..=max`.
fn paginate<T: serde::Serialize>(
    mut items: Vec<T>,
    id: impl Fn(&T) -> &str,
    q: &ListQuery,
    default_limit: usize,
    max_limit: usize,
) -> Answer {
    let limit = match &q.limit {
        None => default_limit,
        Some(s) => match s.parse::<usize>() {
            Ok(n) if (1..=max_limit).contains(&n) => n,
            _ => {
                return Err(ApiErr::invalid(
                    "limit",
                    format!(
                    "Invalid 'limit': expected an integer between 1 and {max_limit}, got '{s}'."
                ),
                ))
            }
        },
    };
    match q.order.as_deref() {
        None | Some("desc") => items.reverse(),
        Some("asc") => {}
        Some(o) => {
            return Err(ApiErr::invalid(
                "order",
                format!("Invalid 'order': expected 'asc' or 'desc', got '{o}'."),
            ))
        }
    }
    let start = match &q.after {
        None => 0,
        // An unknown cursor (e.g. deleted meanwhile) yields an empty page, never an error loop.
        Some(after) => items
            .iter()
            .position(|t| id(t) == after)
            .map(|p| p + 1)
            .unwrap_or(items.len()),
    };
    let rest: Vec<T> = items.into_iter().skip(start).collect();
    let has_more = rest.len() > limit;
    let data: Vec<T> = rest.into_iter().take(limit).collect();
    let first_id = data.first().map(|t| id(t).to_string());
    let last_id = data.last().map(|t| id(t).to_string());
    Ok(Json(json!({
        "object": "list", "data": data, "first_id": first_id, "last_id": last_id, "has_more": has_more,
    }))
    .into_response())
}

// ---------------------------------------------------------------------------------------------
// Files

async fn upload_file(
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
fn sanitize_name(name: &str) -> String {
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

async fn list_files(State(emu): State<Emulator>, Query(q): Query<ListQuery>) -> Answer {
    let files: Vec<FileObject> = emu
        .store()
        .files
        .iter()
        .filter(|f| q.purpose.as_deref().is_none_or(|p| f.object.purpose == p))
        .map(|f| f.object.clone())
        .collect();
    paginate(files, |f| &f.id, &q, 10_000, 10_000)
}

async fn get_file(State(emu): State<Emulator>, UrlPath(id): UrlPath<String>) -> Answer {
    let store = emu.store();
    let f = store
        .files
        .iter()
        .find(|f| f.object.id == id)
        .ok_or_else(|| ApiErr::not_found("File", &id))?;
    Ok(Json(f.object.clone()).into_response())
}

async fn file_content(State(emu): State<Emulator>, UrlPath(id): UrlPath<String>) -> Answer {
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

async fn delete_file(State(emu): State<Emulator>, UrlPath(id): UrlPath<String>) -> Answer {
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

fn binary(bytes: Vec<u8>) -> Response {
    ([(header::CONTENT_TYPE, "application/octet-stream")], bytes).into_response()
}

// ---------------------------------------------------------------------------------------------
// Containers

fn parse_json_object(body: &Bytes) -> Result<serde_json::Map<String, Value>, ApiErr> {
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

async fn create_container(State(emu): State<Emulator>, body: Bytes) -> Answer {
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
    let file_ids: Vec<String> = match body.get("file_ids") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect::<Option<_>>()
            .ok_or_else(|| {
                ApiErr::invalid(
                    "file_ids",
                    "Invalid type for 'file_ids': expected an array of strings.",
                )
            })?,
        Some(_) => {
            return Err(ApiErr::invalid(
                "file_ids",
                "Invalid type for 'file_ids': expected an array of strings.",
            ))
        }
    };
    let memory_limit = match body.get("memory_limit") {
        None | Some(Value::Null) => "1g".to_string(),
        Some(Value::String(s)) if ["1g", "4g", "16g", "64g"].contains(&s.as_str()) => s.clone(),
        Some(v) => {
            return Err(ApiErr::invalid(
                "memory_limit",
                format!("Invalid 'memory_limit': {v}. Expected one of '1g', '4g', '16g', '64g'."),
            ))
        }
    };
    let network_policy = match body.get("network_policy") {
        None | Some(Value::Null) => NetworkPolicy::disabled(),
        Some(v) => network_policy(v)?,
    };
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
    Ok(Json(object).into_response())
}

fn network_policy(v: &Value) -> Result<NetworkPolicy, ApiErr> {
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

async fn list_containers(State(emu): State<Emulator>, Query(q): Query<ListQuery>) -> Answer {
    let items: Vec<Container> = emu
        .store()
        .containers
        .iter()
        .filter(|c| q.name.as_deref().is_none_or(|n| c.object.name == n))
        .map(|c| c.object.clone())
        .collect();
    paginate(items, |c| &c.id, &q, 20, 100)
}

async fn get_container(State(emu): State<Emulator>, UrlPath(id): UrlPath<String>) -> Answer {
    let store = emu.store();
    let c = store
        .containers
        .iter()
        .find(|c| c.object.id == id)
        .ok_or_else(|| ApiErr::not_found("Container", &id))?;
    Ok(Json(c.object.clone()).into_response())
}

async fn delete_container(State(emu): State<Emulator>, UrlPath(id): UrlPath<String>) -> Answer {
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
fn refresh(c: &mut StoredContainer) {
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
fn walk(dir: &Path, prefix: &str, depth: usize, found: &mut Vec<(String, u64)>) {
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

fn container_file(c: &StoredContainer, e: &Entry) -> ContainerFile {
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

fn with_container<T>(
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

async fn list_container_files(
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

async fn get_container_file(
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

async fn container_file_content(
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

async fn delete_container_file(
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
fn read_no_follow(path: &Path) -> std::io::Result<Vec<u8>> {
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

// ---------------------------------------------------------------------------------------------
// Responses

async fn create_response(
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
    // The shell tool and its container.
    let mut container_id = None;
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
                    Some(other) => return Err(ApiErr::invalid(&format!("tools[{i}].environment.type"), format!("The emulator supports only 'container_reference' shell environments, not '{other}'."))),
                    None => return Err(ApiErr::missing(&format!("tools[{i}].environment"))),
                }
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
        .filter(|i| i.get("type").and_then(Value::as_str) == Some("shell_call"))
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
            (Some("shell_call"), Some(id)) => calls.push(id.to_string()),
            (Some("shell_call_output"), Some(id)) if !calls.iter().any(|c| c == id) => {
                return Err(ApiErr::invalid(
                    &format!("input[{i}]"),
                    format!("No tool call found for shell call output with call_id {id}."),
                ));
            }
            (Some("shell_call" | "shell_call_output"), None) => {
                return Err(ApiErr::missing(&format!("input[{i}].call_id")))
            }
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
    // The agent acts only when it has a shell and may use it.
    let output = match (&container_id, tool_choice.as_ref().and_then(Value::as_str)) {
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
        for c in &output.call_ids {
            store.call_turns.insert(c.clone(), turn);
        }
        store.responses.insert(
            id,
            StoredResponse {
                body: response.clone(),
                turn,
            },
        );
    }
    Ok(Json(response).into_response())
}

async fn get_response(State(emu): State<Emulator>, UrlPath(id): UrlPath<String>) -> Answer {
    let store = emu.store();
    let r = store
        .responses
        .get(&id)
        .ok_or_else(|| ApiErr::not_found("Response", &id))?;
    Ok(Json(r.body.clone()).into_response())
}

async fn delete_response(State(emu): State<Emulator>, UrlPath(id): UrlPath<String>) -> Answer {
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
