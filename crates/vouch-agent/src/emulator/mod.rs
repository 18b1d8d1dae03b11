//! A local emulator of the OpenAI endpoints a hosted-sandbox run uses, faithful to the wire facts
//! (`shared/docs/openai-api.md`, `docs/openai-wire.md`): files, containers, container files,
//! `/responses` and the Agents API's sessions (see [`sessions`]), under
//! `/v1`, with in-memory state, the `{"error": {...}}` body and status codes, cursor pagination,
//! ids in the real formats, `x-request-id` on every answer, and a scripted agent (see [`agent`])
//! that runs a playbook's shell commands for real in each container's private directory under
//! bubblewrap (see [`crate::sandbox`]). Faults can be injected (see [`fault`]).
//!
//! Limits: one process, state lost on exit; uploads are capped at 64 MiB; container directories
//! live under the system temp directory and are removed with their container (and when the
//! emulator is dropped). Background responses are not emulated.

pub mod agent;
mod containers;
pub mod fault;
mod files;
mod page;
mod responses;
mod sessions;

use crate::run::wire::{Container, FileObject};
use crate::sandbox::Sandbox;
use agent::Playbook;
use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use fault::{Fault, FaultKind, When};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
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
    /// shell call id → the container it ran in (a `container_auto` conversation's container).
    call_containers: HashMap<String, String>,
    /// call id → which command of its turn it ran (`exec_command` calls run one command each).
    call_steps: HashMap<String, usize>,
    /// The Agents API's sessions, oldest first.
    sessions: Vec<sessions::StoredSession>,
    /// Every repair prompt the agent was sent (`/responses` and sessions), in order.
    repair_prompts: Vec<String>,
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
        // A session's open event subscriptions end with it; the graceful shutdown waits for them.
        self.emulator.store().sessions.clear();
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
                sandbox: Sandbox::locate_working().ok(),
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

    /// Every repair prompt the agent was sent, in order (what `vouch run --repair` told it).
    pub fn repair_prompts(&self) -> Vec<String> {
        lock(&self.shared.state).repair_prompts.clone()
    }

    /// How many responses the emulator has answered and still stores.
    pub fn response_count(&self) -> usize {
        lock(&self.shared.state).responses.len()
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
            .route("/files", post(files::upload_file).get(files::list_files))
            .route(
                "/files/{id}",
                get(files::get_file).delete(files::delete_file),
            )
            .route("/files/{id}/content", get(files::file_content))
            .route(
                "/containers",
                post(containers::create_container).get(containers::list_containers),
            )
            .route(
                "/containers/{id}",
                get(containers::get_container).delete(containers::delete_container),
            )
            .route(
                "/containers/{id}/files",
                get(containers::list_container_files),
            )
            .route(
                "/containers/{id}/files/{fid}",
                get(containers::get_container_file).delete(containers::delete_container_file),
            )
            .route(
                "/containers/{id}/files/{fid}/content",
                get(containers::container_file_content),
            )
            .route("/responses", post(responses::create_response))
            .route(
                "/agents/sessions",
                post(sessions::create_session).get(sessions::list_sessions),
            )
            .route(
                "/agents/sessions/{id}",
                get(sessions::get_session).delete(sessions::delete_session),
            )
            .route(
                "/agents/sessions/{id}/events",
                get(sessions::stream_events).post(sessions::post_events),
            )
            .route(
                "/agents/sessions/{id}/artifacts",
                get(sessions::list_artifacts),
            )
            .route(
                "/agents/sessions/{id}/artifacts/{aid}",
                get(sessions::get_artifact).delete(sessions::delete_artifact),
            )
            .route(
                "/agents/sessions/{id}/artifacts/{aid}/content",
                get(sessions::artifact_content),
            )
            .route("/agents/sessions/{id}/items", get(sessions::list_items))
            .route("/agents/sessions/{id}/turns", get(sessions::list_turns))
            .route("/agents/sessions/{id}/turns/{tid}", get(sessions::get_turn))
            .route(
                "/responses/{id}",
                get(responses::get_response).delete(responses::delete_response),
            );
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
                    None if kinds.contains(&FaultKind::Cut) => cut(next.run(req).await),
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

/// The `cut` fault: the answer's head and first chunk, then a broken connection.
fn cut(answer: Response) -> Response {
    use futures_util::StreamExt;
    let (mut parts, body) = answer.into_parts();
    // The length would promise more than is sent.
    parts.headers.remove(header::CONTENT_LENGTH);
    let first = body.into_data_stream().take(1);
    let broken = futures_util::stream::once(async {
        Err::<Bytes, axum::Error>(axum::Error::new(std::io::Error::other(
            "connection cut (fault)",
        )))
    });
    Response::from_parts(parts, Body::from_stream(first.chain(broken)))
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
