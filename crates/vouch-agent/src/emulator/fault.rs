//! Fault injection for the emulator: `KIND[@ROUTE][:WHEN]`, given with `--fault` or per request in
//! an `x-vouch-fault` header (comma-separated).
//!
//! - KIND: `429` (rate limited, with `retry-after-ms` and `retry-after`), `500` (server error),
//!   `slow` (the answer is delayed), `drop` (the connection is cut before an answer), `cut` (the
//!   answer starts and the connection is cut after its first chunk — a stream's first event),
//!   `incomplete` (`/responses` answers `status: incomplete`), `delete-fails` (deletions answer 500).
//! - ROUTE: `files`, `containers`, `container-files`, `responses`, `sessions` (the Agents API),
//!   `delete` or `all`; the default
//!   is `all` for 429/500/drop, `responses` for slow/incomplete and `delete` for delete-fails.
//! - WHEN: `first` (the first attempt of each request, told by `x-stainless-retry-count: 0` or its
//!   absence; the default for 429/500/drop, so a retrying client recovers), `always` (the default
//!   for the others), or `once` (only the first matching request the emulator sees).

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    RateLimited,
    ServerError,
    Slow,
    Drop,
    /// The answer starts, then the connection is cut after its first chunk (an event stream's
    /// first event).
    Cut,
    Incomplete,
    DeleteFails,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    Files,
    Containers,
    ContainerFiles,
    Responses,
    /// The Agents API: `/agents/sessions` and everything under it.
    Sessions,
    Delete,
    All,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum When {
    First,
    Always,
    Once,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    pub kind: FaultKind,
    pub route: Route,
    pub when: When,
}

#[derive(Debug, thiserror::Error)]
#[error("bad fault `{given}`: {why} (expected KIND[@ROUTE][:WHEN], KIND one of 429, 500, slow, drop, cut, incomplete, delete-fails)")]
pub struct FaultError {
    given: String,
    why: String,
}

impl Fault {
    pub fn parse(text: &str) -> Result<Fault, FaultError> {
        let err = |why: &str| FaultError {
            given: text.to_string(),
            why: why.to_string(),
        };
        let text = text.trim();
        let (rest, when) = match text.rsplit_once(':') {
            Some((r, w)) => (
                r,
                Some(match w {
                    "first" => When::First,
                    "always" => When::Always,
                    "once" => When::Once,
                    _ => return Err(err("WHEN is first, always or once")),
                }),
            ),
            None => (text, None),
        };
        let (kind, route) = match rest.split_once('@') {
            Some((k, r)) => (k, Some(r)),
            None => (rest, None),
        };
        let kind = match kind {
            "429" => FaultKind::RateLimited,
            "500" => FaultKind::ServerError,
            "slow" => FaultKind::Slow,
            "drop" => FaultKind::Drop,
            "cut" => FaultKind::Cut,
            "incomplete" => FaultKind::Incomplete,
            "delete-fails" => FaultKind::DeleteFails,
            _ => return Err(err("unknown KIND")),
        };
        let route = match route {
            None => match kind {
                FaultKind::Slow | FaultKind::Incomplete => Route::Responses,
                FaultKind::DeleteFails => Route::Delete,
                _ => Route::All,
            },
            Some("files") => Route::Files,
            Some("containers") => Route::Containers,
            Some("container-files") => Route::ContainerFiles,
            Some("responses") => Route::Responses,
            Some("sessions") => Route::Sessions,
            Some("delete") => Route::Delete,
            Some("all") => Route::All,
            Some(_) => return Err(err(
                "ROUTE is files, containers, container-files, responses, sessions, delete or all",
            )),
        };
        let when = when.unwrap_or(match kind {
            FaultKind::RateLimited | FaultKind::ServerError | FaultKind::Drop => When::First,
            _ => When::Always,
        });
        Ok(Fault { kind, route, when })
    }

    /// Whether this fault concerns a request on `route` (by path) with `method`.
    pub fn covers(&self, route: Route, is_delete: bool) -> bool {
        match self.route {
            Route::All => true,
            Route::Delete => is_delete,
            r => r == route,
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            FaultKind::RateLimited => "429",
            FaultKind::ServerError => "500",
            FaultKind::Slow => "slow",
            FaultKind::Drop => "drop",
            FaultKind::Cut => "cut",
            FaultKind::Incomplete => "incomplete",
            FaultKind::DeleteFails => "delete-fails",
        };
        let route = match self.route {
            Route::Files => "files",
            Route::Containers => "containers",
            Route::ContainerFiles => "container-files",
            Route::Responses => "responses",
            Route::Sessions => "sessions",
            Route::Delete => "delete",
            Route::All => "all",
        };
        let when = match self.when {
            When::First => "first",
            When::Always => "always",
            When::Once => "once",
        };
        write!(f, "{kind}@{route}:{when}")
    }
}

/// The route class of a `/v1/...` path.
pub fn route_of(path: &str) -> Route {
    let rest = path.strip_prefix("/v1").unwrap_or(path);
    let mut parts = rest.trim_start_matches('/').split('/');
    match (parts.next(), parts.next(), parts.next()) {
        (Some("files"), _, _) => Route::Files,
        (Some("containers"), Some(_), Some("files")) => Route::ContainerFiles,
        (Some("containers"), _, _) => Route::Containers,
        (Some("responses"), _, _) => Route::Responses,
        (Some("agents"), Some("sessions"), _) => Route::Sessions,
        _ => Route::All,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_make_transient_faults_hit_first_attempts_only() {
        let f = Fault::parse("429").unwrap();
        assert_eq!((f.route, f.when), (Route::All, When::First));
        let f = Fault::parse("delete-fails").unwrap();
        assert_eq!((f.route, f.when), (Route::Delete, When::Always));
        let f = Fault::parse("500@responses:always").unwrap();
        assert_eq!(
            f,
            Fault {
                kind: FaultKind::ServerError,
                route: Route::Responses,
                when: When::Always
            }
        );
        assert_eq!(f.to_string(), "500@responses:always");
    }

    #[test]
    fn rejects_unknown_kinds_routes_and_whens() {
        assert!(Fault::parse("418").is_err());
        assert!(Fault::parse("500@nowhere").is_err());
        assert!(Fault::parse("500:sometimes").is_err());
    }

    #[test]
    fn classifies_paths() {
        assert_eq!(route_of("/v1/files/file-1"), Route::Files);
        assert_eq!(route_of("/v1/containers/cntr_1"), Route::Containers);
        assert_eq!(
            route_of("/v1/containers/cntr_1/files/cfile_1/content"),
            Route::ContainerFiles
        );
        assert_eq!(route_of("/v1/responses"), Route::Responses);
    }
}
