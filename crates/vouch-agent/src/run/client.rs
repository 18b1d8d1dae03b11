//! A small client for the OpenAI endpoints of a hosted-sandbox run, with the official SDK's retry
//! policy: connection errors, timeouts and statuses 408/409/429/5xx are retried (`max_retries`,
//! default 2, so three attempts); a server-given delay (`retry-after-ms`, then `retry-after` in
//! seconds or as an HTTP date) is honoured when it is within (0, 120] s, a longer one stops the
//! retries, and otherwise the delay is `min(0.5·2^n, 8)` s times a jitter in [0.75, 1].
//! `x-should-retry` overrides the decision. Every `x-request-id` seen is recorded.
//!
//! Limits: bodies are read with a cap (JSON answers 64 MiB, downloads the caller's cap), so a
//! hostile or broken server cannot exhaust memory.

use super::wire::{
    Container, ContainerCreate, ContainerFile, Deleted, ErrorBody, FileObject, Page, Response,
    SessionArtifact,
};
use reqwest::header::{HeaderMap, HeaderValue, ACCEPT};
use reqwest::{Method, StatusCode};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

/// The public API; `OPENAI_BASE_URL` overrides it.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
/// A server may ask for at most this delay; a longer one is not waited for.
const MAX_SERVER_DELAY: Duration = Duration::from_secs(120);
const MAX_JSON_BYTES: u64 = 64 << 20;
/// Pages walked at most when listing container files (100 items each).
const MAX_PAGES: usize = 1000;

#[derive(Clone, Debug)]
pub struct ClientConfig {
    pub base_url: String,
    pub api_key: String,
    pub max_retries: u32,
    pub connect_timeout: Duration,
    /// Per attempt; a hosted-shell `/responses` call can take minutes.
    pub request_timeout: Duration,
}

impl ClientConfig {
    /// `OPENAI_BASE_URL` (default the public API) and `OPENAI_API_KEY`, the SDK's timeouts.
    pub fn from_env() -> Result<ClientConfig, ApiError> {
        let base_url = std::env::var("OPENAI_BASE_URL")
            .ok()
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| DEFAULT_BASE_URL.to_string());
        let api_key = std::env::var("OPENAI_API_KEY")
            .ok()
            .filter(|s| !s.is_empty())
            .ok_or(ApiError::NoApiKey)?;
        Ok(ClientConfig::new(base_url, api_key))
    }

    pub fn new(base_url: impl Into<String>, api_key: impl Into<String>) -> ClientConfig {
        ClientConfig {
            base_url: base_url.into().trim_end_matches('/').to_string(),
            api_key: api_key.into(),
            max_retries: 2,
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(600),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("OPENAI_API_KEY is not set")]
    NoApiKey,
    #[error("cannot build the HTTP client: {0}")]
    Build(String),
    #[error("{method} {path}: HTTP {status}{}: {message}{} after {attempts} attempt(s)", kind.as_deref().map(|k| format!(" {k}")).unwrap_or_default(), request_id.as_deref().map(|r| format!(" (request id {r})")).unwrap_or_default())]
    Status {
        method: String,
        path: String,
        status: u16,
        kind: Option<String>,
        message: String,
        request_id: Option<String>,
        attempts: u32,
    },
    #[error("{method} {path}: {why} after {attempts} attempt(s)")]
    Transport {
        method: String,
        path: String,
        why: String,
        attempts: u32,
    },
    #[error("{method} {path}: unexpected answer{}: {why}", request_id.as_deref().map(|r| format!(" (request id {r})")).unwrap_or_default())]
    Decode {
        method: String,
        path: String,
        why: String,
        request_id: Option<String>,
    },
    #[error("{method} {path}: the body is over the {limit}-byte limit")]
    TooLarge {
        method: String,
        path: String,
        limit: u64,
    },
}

impl ApiError {
    pub fn status(&self) -> Option<u16> {
        match self {
            ApiError::Status { status, .. } => Some(*status),
            _ => None,
        }
    }
}

/// The `x-request-id`s of every answer, in order (shared by the clones of one client view).
#[derive(Clone, Debug, Default)]
pub struct RequestLog(Arc<Mutex<Vec<String>>>);

impl RequestLog {
    fn push(&self, id: String) {
        if let Ok(mut v) = self.0.lock() {
            v.push(id);
        }
    }
    pub fn ids(&self) -> Vec<String> {
        self.0.lock().map(|v| v.clone()).unwrap_or_default()
    }
}

/// One view of the API; clone it per trial with [`Client::with_log`] to keep request ids apart.
#[derive(Clone, Debug)]
pub struct Client {
    http: reqwest::Client,
    config: ClientConfig,
    log: RequestLog,
}

/// The body of one attempt; rebuilt per attempt because a multipart form is consumed.
enum Body<'a> {
    None,
    Json(&'a Value),
    Upload {
        file_name: &'a str,
        bytes: &'a [u8],
        purpose: &'a str,
    },
}

impl Client {
    pub fn new(config: ClientConfig) -> Result<Client, ApiError> {
        let http = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .timeout(config.request_timeout)
            .user_agent(concat!("vouch/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| ApiError::Build(e.to_string()))?;
        Ok(Client {
            http,
            config,
            log: RequestLog::default(),
        })
    }

    /// The same connection pool with a fresh request log.
    pub fn with_log(&self) -> Client {
        Client {
            log: RequestLog::default(),
            ..self.clone()
        }
    }

    pub fn request_ids(&self) -> Vec<String> {
        self.log.ids()
    }

    pub fn base_url(&self) -> &str {
        &self.config.base_url
    }

    /// `POST /files` (multipart), purpose `user_data`.
    pub async fn upload_file(&self, file_name: &str, bytes: &[u8]) -> Result<FileObject, ApiError> {
        let body = Body::Upload {
            file_name,
            bytes,
            purpose: "user_data",
        };
        self.json(Method::POST, "/files", body).await
    }

    /// `DELETE /files/{id}`; the answer must say `deleted: true`.
    pub async fn delete_file(&self, id: &str) -> Result<(), ApiError> {
        self.delete_checked(format!("/files/{id}")).await
    }

    /// A DELETE whose answer must say `deleted: true`.
    async fn delete_checked(&self, path: String) -> Result<(), ApiError> {
        let deleted: Deleted = self.json(Method::DELETE, &path, Body::None).await?;
        if deleted.deleted {
            Ok(())
        } else {
            Err(ApiError::Decode {
                method: "DELETE".into(),
                path,
                why: "the answer says deleted: false".into(),
                request_id: None,
            })
        }
    }

    pub async fn create_container(&self, body: &ContainerCreate) -> Result<Container, ApiError> {
        let body = serde_json::to_value(body).map_err(|e| ApiError::Build(e.to_string()))?;
        self.json(Method::POST, "/containers", Body::Json(&body))
            .await
    }

    /// `DELETE /containers/{id}`; like the SDK, the answer's body is not required.
    pub async fn delete_container(&self, id: &str) -> Result<(), ApiError> {
        let path = format!("/containers/{id}");
        self.send(
            Method::DELETE,
            &path,
            Body::None,
            Some("*/*"),
            MAX_JSON_BYTES,
        )
        .await
        .map(|_| ())
    }

    /// Every file of a container, walking the cursor pages (`after` = the last item's id).
    pub async fn list_container_files(&self, cid: &str) -> Result<Vec<ContainerFile>, ApiError> {
        self.walk_pages(&format!("/containers/{cid}/files")).await
    }

    /// The raw bytes of a container file, at most `limit` bytes.
    pub async fn download_container_file(
        &self,
        cid: &str,
        fid: &str,
        limit: u64,
    ) -> Result<Vec<u8>, ApiError> {
        let path = format!("/containers/{cid}/files/{fid}/content");
        self.send(
            Method::GET,
            &path,
            Body::None,
            Some("application/binary"),
            limit,
        )
        .await
        .map(|(bytes, _)| bytes)
    }

    pub async fn create_response(&self, body: &Value) -> Result<Response, ApiError> {
        self.json(Method::POST, "/responses", Body::Json(body))
            .await
    }

    /// A GET on a list endpoint, one page (for leak checks).
    pub async fn get_json(&self, path: &str) -> Result<Value, ApiError> {
        self.json(Method::GET, path, Body::None).await
    }

    async fn json<T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: Body<'_>,
    ) -> Result<T, ApiError> {
        let (bytes, request_id) = self
            .send(method.clone(), path, body, None, MAX_JSON_BYTES)
            .await?;
        serde_json::from_slice(&bytes).map_err(|e| ApiError::Decode {
            method: method.to_string(),
            path: path.to_string(),
            why: e.to_string(),
            request_id,
        })
    }

    /// One call with retries: the body of the successful answer and its request id.
    async fn send(
        &self,
        method: Method,
        path: &str,
        body: Body<'_>,
        accept: Option<&str>,
        limit: u64,
    ) -> Result<(Vec<u8>, Option<String>), ApiError> {
        let mut attempt: u32 = 0;
        loop {
            let (response, request_id, tried) = self
                .open(method.clone(), path, &body, accept, attempt)
                .await?;
            attempt = tried;
            match read_capped(response, limit).await {
                Ok(Some(bytes)) => return Ok((bytes, request_id)),
                Ok(None) => {
                    return Err(ApiError::TooLarge {
                        method: method.to_string(),
                        path: path.to_string(),
                        limit,
                    })
                }
                Err(e) => {
                    // The connection dropped mid-body: a connection error, retried.
                    if attempt < self.config.max_retries {
                        tokio::time::sleep(backoff(attempt)).await;
                        attempt += 1;
                        continue;
                    }
                    return Err(ApiError::Transport {
                        method: method.to_string(),
                        path: path.to_string(),
                        why: describe(&e),
                        attempts: attempt + 1,
                    });
                }
            }
        }
    }

    /// Send until an answer is a success (retrying as the SDK does, from attempt `attempt`): the
    /// answer, unread, its request id, and the attempt it came on. Agents API paths carry the
    /// beta header.
    async fn open(
        &self,
        method: Method,
        path: &str,
        body: &Body<'_>,
        accept: Option<&str>,
        mut attempt: u32,
    ) -> Result<(reqwest::Response, Option<String>, u32), ApiError> {
        let url = format!("{}{}", self.config.base_url, path);
        loop {
            let mut req = self
                .http
                .request(method.clone(), &url)
                .bearer_auth(&self.config.api_key)
                .header(ACCEPT, accept.unwrap_or("application/json"))
                .header("x-stainless-retry-count", attempt.to_string());
            if path.starts_with("/agents/") {
                req = req.header("OpenAI-Beta", "agents=v1");
            }
            req = match body {
                Body::None => req,
                Body::Json(v) => req.json(v),
                Body::Upload {
                    file_name,
                    bytes,
                    purpose,
                } => {
                    let part = reqwest::multipart::Part::bytes(bytes.to_vec())
                        .file_name(file_name.to_string())
                        .mime_str(guess_mime(file_name))
                        .map_err(|e| ApiError::Build(e.to_string()))?;
                    req.multipart(
                        reqwest::multipart::Form::new()
                            .text("purpose", purpose.to_string())
                            .part("file", part),
                    )
                }
            };
            let retries_left = attempt < self.config.max_retries;
            let response = match req.send().await {
                Ok(r) => r,
                Err(e) => {
                    if retries_left && is_retryable_transport(&e) {
                        tokio::time::sleep(backoff(attempt)).await;
                        attempt += 1;
                        continue;
                    }
                    return Err(ApiError::Transport {
                        method: method.to_string(),
                        path: path.to_string(),
                        why: describe(&e),
                        attempts: attempt + 1,
                    });
                }
            };
            let status = response.status();
            let headers = response.headers().clone();
            let request_id = header_str(&headers, "x-request-id");
            if let Some(id) = &request_id {
                self.log.push(id.clone());
            }
            if status.is_success() {
                return Ok((response, request_id, attempt));
            }
            let body = read_capped(response, MAX_JSON_BYTES)
                .await
                .ok()
                .flatten()
                .unwrap_or_default();
            let server_delay = server_delay(&headers);
            let should_retry = match header_str(&headers, "x-should-retry").as_deref() {
                Some("true") => true,
                Some("false") => false,
                _ => is_retryable_status(status),
            };
            let delay = match server_delay {
                Some(d) if d > Duration::ZERO && d <= MAX_SERVER_DELAY => Some(d),
                Some(d) if d > MAX_SERVER_DELAY => None,
                _ => Some(backoff(attempt)),
            };
            if should_retry && retries_left {
                if let Some(delay) = delay {
                    tokio::time::sleep(delay).await;
                    attempt += 1;
                    continue;
                }
            }
            let (kind, message) = match serde_json::from_slice::<ErrorBody>(&body) {
                Ok(e) => (e.error.kind, e.error.message),
                Err(_) => (
                    None,
                    String::from_utf8_lossy(&body[..body.len().min(500)]).into_owned(),
                ),
            };
            return Err(ApiError::Status {
                method: method.to_string(),
                path: path.to_string(),
                status: status.as_u16(),
                kind,
                message,
                request_id,
                attempts: attempt + 1,
            });
        }
    }

    /// `POST /agents/sessions` with `stream: true`: the session's event stream. The request is
    /// retried as any other until an answer starts; a stream cut later is the caller's to
    /// recover from (by polling the session), never re-sent, which would make a second session.
    pub async fn create_session_stream(&self, body: &Value) -> Result<EventStream, ApiError> {
        let (response, _, _) = self
            .open(
                Method::POST,
                "/agents/sessions",
                &Body::Json(body),
                Some("text/event-stream"),
                0,
            )
            .await?;
        Ok(EventStream::new(response))
    }

    /// `GET /agents/sessions/{id}/events`: the session's live event stream from now on.
    pub async fn stream_session_events(&self, id: &str) -> Result<EventStream, ApiError> {
        let (response, _, _) = self
            .open(
                Method::GET,
                &format!("/agents/sessions/{id}/events"),
                &Body::None,
                Some("text/event-stream"),
                0,
            )
            .await?;
        Ok(EventStream::new(response))
    }

    /// `GET /agents/sessions/{id}`.
    pub async fn get_session(&self, id: &str) -> Result<Value, ApiError> {
        self.json(Method::GET, &format!("/agents/sessions/{id}"), Body::None)
            .await
    }

    /// `POST /agents/sessions/{id}/events` with `events` (the answer's body is not read).
    pub async fn post_session_events(&self, id: &str, events: &Value) -> Result<(), ApiError> {
        let body = serde_json::json!({ "events": events });
        self.send(
            Method::POST,
            &format!("/agents/sessions/{id}/events"),
            Body::Json(&body),
            Some("*/*"),
            MAX_JSON_BYTES,
        )
        .await
        .map(|_| ())
    }

    /// `DELETE /agents/sessions/{id}`; the answer must say `deleted: true`.
    pub async fn delete_session(&self, id: &str) -> Result<(), ApiError> {
        self.delete_checked(format!("/agents/sessions/{id}")).await
    }

    /// Every artifact of a session, walking the cursor pages.
    pub async fn list_session_artifacts(&self, id: &str) -> Result<Vec<SessionArtifact>, ApiError> {
        self.walk_pages(&format!("/agents/sessions/{id}/artifacts"))
            .await
    }

    /// The raw bytes of a session artifact, at most `limit` bytes.
    pub async fn download_session_artifact(
        &self,
        sid: &str,
        aid: &str,
        limit: u64,
    ) -> Result<Vec<u8>, ApiError> {
        let path = format!("/agents/sessions/{sid}/artifacts/{aid}/content");
        self.send(
            Method::GET,
            &path,
            Body::None,
            Some("application/octet-stream"),
            limit,
        )
        .await
        .map(|(bytes, _)| bytes)
    }

    /// Every item of a list endpoint (`after` = the last item's id, 100 a page, oldest first).
    async fn walk_pages<T: DeserializeOwned + HasId>(
        &self,
        base: &str,
    ) -> Result<Vec<T>, ApiError> {
        let mut all = Vec::new();
        let mut after: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let mut path = format!("{base}?limit=100&order=asc");
            if let Some(a) = &after {
                path.push_str("&after=");
                path.push_str(a);
            }
            let page: Page<T> = self.json(Method::GET, &path, Body::None).await?;
            let more = page.has_more.unwrap_or(!page.data.is_empty());
            let last = page.data.last().map(|f| f.id().to_string());
            all.extend(page.data);
            match (more, last) {
                (true, Some(last)) => after = Some(last),
                _ => return Ok(all),
            }
        }
        Err(ApiError::Decode {
            method: "GET".into(),
            path: base.to_string(),
            why: format!("more than {MAX_PAGES} pages"),
            request_id: None,
        })
    }
}

/// An item of a cursor-paged list.
pub trait HasId {
    fn id(&self) -> &str;
}

impl HasId for ContainerFile {
    fn id(&self) -> &str {
        &self.id
    }
}

impl HasId for SessionArtifact {
    fn id(&self) -> &str {
        &self.id
    }
}

/// Bytes one server-sent event may hold at most: a bigger one ends the stream with an error.
const MAX_EVENT_BYTES: usize = 16 << 20;

/// A server-sent event stream being read: each `data:` payload (the lines of one event joined)
/// parsed as JSON, comments and data-less events skipped, `[DONE]` or the end of the body ending
/// it.
pub struct EventStream {
    response: reqwest::Response,
    buffer: Vec<u8>,
    finished: bool,
}

impl EventStream {
    fn new(response: reqwest::Response) -> EventStream {
        EventStream {
            response,
            buffer: Vec::new(),
            finished: false,
        }
    }

    /// The next event, `None` at the end; an error when the connection breaks or an event is
    /// not JSON.
    pub async fn next(&mut self) -> Result<Option<Value>, String> {
        loop {
            if let Some((frame, rest)) = split_frame(&self.buffer) {
                let frame = frame.to_vec();
                self.buffer.drain(..rest);
                match parse_frame(&frame)? {
                    Some(Frame::Done) => {
                        self.finished = true;
                        return Ok(None);
                    }
                    Some(Frame::Event(v)) => return Ok(Some(v)),
                    None => continue,
                }
            }
            if self.finished {
                return Ok(None);
            }
            match self.response.chunk().await {
                Ok(Some(chunk)) => {
                    self.buffer.extend_from_slice(&chunk);
                    if self.buffer.len() > MAX_EVENT_BYTES {
                        return Err(format!(
                            "an event of the stream is over {MAX_EVENT_BYTES} bytes"
                        ));
                    }
                }
                Ok(None) => {
                    self.finished = true;
                    // A last event without its blank line still counts.
                    let rest = std::mem::take(&mut self.buffer);
                    return match parse_frame(&rest)? {
                        Some(Frame::Event(v)) => Ok(Some(v)),
                        _ => Ok(None),
                    };
                }
                Err(e) => return Err(format!("the event stream broke: {}", describe(&e))),
            }
        }
    }
}

enum Frame {
    Event(Value),
    Done,
}

/// The first complete event of `buf` (up to its blank line) and where the rest starts.
fn split_frame(buf: &[u8]) -> Option<(&[u8], usize)> {
    let mut i = 0;
    while i < buf.len() {
        // A blank line: "\n\n", "\r\n\r\n" or "\r\r".
        for sep in [&b"\r\n\r\n"[..], b"\n\n", b"\r\r"] {
            if buf[i..].starts_with(sep) {
                return Some((&buf[..i], i + sep.len()));
            }
        }
        i += 1;
    }
    None
}

/// One event's `data:` lines, joined; `None` for comments and events without data.
fn parse_frame(frame: &[u8]) -> Result<Option<Frame>, String> {
    let text = String::from_utf8_lossy(frame);
    let mut data: Vec<&str> = Vec::new();
    for line in text.split(['\n', '\r']) {
        if let Some(rest) = line.strip_prefix("data:") {
            data.push(rest.strip_prefix(' ').unwrap_or(rest));
        }
    }
    if data.is_empty() {
        return Ok(None);
    }
    let payload = data.join("\n");
    if payload.trim() == "[DONE]" {
        return Ok(Some(Frame::Done));
    }
    serde_json::from_str(&payload)
        .map(|v| Some(Frame::Event(v)))
        .map_err(|e| format!("an event of the stream is not JSON: {e}"))
}

fn guess_mime(file_name: &str) -> &'static str {
    let lower = file_name.to_ascii_lowercase();
    if lower.ends_with(".csv") {
        "text/csv"
    } else if lower.ends_with(".json") {
        "application/json"
    } else if lower.ends_with(".txt") || lower.ends_with(".md") {
        "text/plain"
    } else {
        "application/octet-stream"
    }
}

fn header_str(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .and_then(|v: &HeaderValue| v.to_str().ok())
        .map(|s| s.trim().to_string())
}

fn is_retryable_status(status: StatusCode) -> bool {
    matches!(status.as_u16(), 408 | 409 | 429) || status.is_server_error()
}

fn is_retryable_transport(e: &reqwest::Error) -> bool {
    e.is_connect() || e.is_timeout() || e.is_request() || e.is_body() || e.is_decode()
}

/// The error with its causes, one line.
fn describe(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

/// `retry-after-ms` (milliseconds), else `retry-after` (seconds or an HTTP date).
pub fn server_delay(headers: &HeaderMap) -> Option<Duration> {
    if let Some(ms) = header_str(headers, "retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        if ms.is_finite() && ms >= 0.0 {
            return Some(Duration::from_secs_f64(ms / 1000.0));
        }
    }
    let value = header_str(headers, "retry-after")?;
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let when = httpdate::parse_http_date(&value).ok()?;
    Some(
        when.duration_since(SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

/// `min(0.5·2^n, 8)` seconds times a jitter in [0.75, 1].
pub fn backoff(attempt: u32) -> Duration {
    let base = (0.5 * 2f64.powi(attempt.min(16) as i32)).min(8.0);
    let jitter = 1.0 - 0.25 * crate::run::random_unit();
    Duration::from_secs_f64(base * jitter)
}

/// Read at most `limit` bytes; `None` when the body is longer.
async fn read_capped(
    mut response: reqwest::Response,
    limit: u64,
) -> Result<Option<Vec<u8>>, reqwest::Error> {
    if response.content_length().is_some_and(|n| n > limit) {
        return Ok(None);
    }
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        if bytes.len() as u64 + chunk.len() as u64 > limit {
            return Ok(None);
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(Some(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn retry_after_ms_takes_precedence_over_retry_after() {
        let h = headers(&[("retry-after-ms", "250"), ("retry-after", "7")]);
        assert_eq!(server_delay(&h), Some(Duration::from_millis(250)));
    }

    #[test]
    fn retry_after_accepts_fractional_seconds() {
        let h = headers(&[("retry-after", "1.5")]);
        assert_eq!(server_delay(&h), Some(Duration::from_millis(1500)));
    }

    #[test]
    fn retry_after_accepts_an_http_date() {
        let later = SystemTime::now() + Duration::from_secs(30);
        let h = headers(&[("retry-after", &httpdate::fmt_http_date(later))]);
        let d = server_delay(&h).unwrap();
        assert!(
            d > Duration::from_secs(25) && d <= Duration::from_secs(30),
            "{d:?}"
        );
    }

    #[test]
    fn backoff_doubles_from_half_a_second_up_to_eight_with_jitter() {
        for (n, base) in [(0, 0.5), (1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (9, 8.0)] {
            let d = backoff(n).as_secs_f64();
            assert!(
                d >= base * 0.75 - 1e-9 && d <= base + 1e-9,
                "attempt {n}: {d}"
            );
        }
    }

    #[test]
    fn retries_the_statuses_the_sdk_retries() {
        for s in [408, 409, 429, 500, 502, 503] {
            assert!(is_retryable_status(StatusCode::from_u16(s).unwrap()), "{s}");
        }
        for s in [400, 401, 403, 404, 422] {
            assert!(
                !is_retryable_status(StatusCode::from_u16(s).unwrap()),
                "{s}"
            );
        }
    }
}
