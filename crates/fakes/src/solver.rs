//! Fake FlareSolverr (API v1) on 127.0.0.1: `POST /v1` with `sessions.create`,
//! `sessions.destroy`, `sessions.list` and `request.get`; `GET /` and `GET /health`.
//! Pages come from an in-memory map URL → body; JSON pages are served wrapped in Chrome's
//! `<pre>` viewer like the real solver. Every command is recorded, and faults can be queued
//! for the next N `request.get` commands.
//!
//! ```ignore
//! let solver = FakeSolver::start().await;
//! solver.add_json(&url, &serde_json::json!({"iTotalRecords": 0, "aaData": []}));
//! solver.fail_next(SolverFault::Challenge, 2);
//! // … point the client at solver.url() …
//! assert_eq!(solver.count("sessions.destroy"), 2);
//! ```

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{Value, json};

const VERSION: &str = "3.5.0";
const USER_AGENT: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36";

/// A fault answered to one `request.get` instead of the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SolverFault {
    /// The solver itself answers HTTP 403.
    Http403,
    /// The solver itself answers HTTP 429.
    Http429,
    /// `status: ok` but `solution.status` 403 (as some solvers report).
    SolutionStatus403,
    /// `status: ok` but `solution.status` 429.
    SolutionStatus429,
    /// A Cloudflare `Just a moment...` challenge page as the response.
    Challenge,
    /// Cloudflare's hard block page, titled `Attention Required! | Cloudflare`.
    AttentionRequired,
    /// A block page titled `Access denied`.
    AccessDenied,
    /// An empty response body.
    EmptyBody,
    /// The body `0`.
    Zero,
    /// The body `Forbidden.`.
    Forbidden,
    /// An HTML page that is not JSON (wrong for a JSON URL).
    GarbageHtml,
    /// HTTP 500 `{"status":"error","message":"Error: solving the challenge. Timeout…"}`.
    Error500,
    /// HTTP 500 whose message says Cloudflare blocked the request.
    Blocked500,
    /// Nothing before the client's timeout: the answer is held for the stall time
    /// ([`FakeSolver::set_stall`], default one hour), then the solver's own timeout error.
    NoAnswer,
}

/// For a URL requested for the first time: the fault it gets, if any
/// ([`FakeSolver::fail_first_request`]).
pub type FaultRule = Arc<dyn Fn(&str) -> Option<SolverFault> + Send + Sync>;

/// Pages of URLs not added with [`FakeSolver::add_page`] ([`FakeSolver::serve_from`]).
pub type PageSource = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// One command the fake received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SolverCall {
    /// `cmd` field.
    pub cmd: String,
    /// `url` field, when given.
    pub url: Option<String>,
    /// `session` field, when given.
    pub session: Option<String>,
    /// `maxTimeout` field, when given.
    pub max_timeout: Option<u64>,
}

#[derive(Default)]
struct Inner {
    pages: HashMap<String, String>,
    faults: VecDeque<SolverFault>,
    calls: Vec<SolverCall>,
    sessions: BTreeSet<String>,
    next_session: u64,
    source: Option<PageSource>,
    first_request_rule: Option<FaultRule>,
    /// URLs already seen by `first_request_rule`.
    seen: BTreeSet<String>,
    /// URLs answered with their page (not a fault), in order.
    served: Vec<String>,
    /// URLs that got a fault of `first_request_rule`, with it.
    faulted: Vec<(String, SolverFault)>,
    stall: Option<Duration>,
}

impl std::fmt::Debug for Inner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inner")
            .field("pages", &self.pages.len())
            .field("faults", &self.faults)
            .field("calls", &self.calls.len())
            .field("sessions", &self.sessions)
            .finish_non_exhaustive()
    }
}

type Shared = Arc<Mutex<Inner>>;

fn lock(s: &Shared) -> MutexGuard<'_, Inner> {
    // A panicking test thread must not hide the fake's state from the others.
    s.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A running fake solver; the server stops when this is dropped.
#[derive(Debug)]
pub struct FakeSolver {
    addr: SocketAddr,
    state: Shared,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FakeSolver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl FakeSolver {
    /// Start on an ephemeral loopback port.
    ///
    /// # Panics
    /// If the loopback port cannot be bound (test environment broken).
    pub async fn start() -> Self {
        let state: Shared = Arc::default();
        let app = Router::new()
            .route("/", get(index))
            .route("/health", get(health))
            .route("/v1", post(v1))
            .fallback(not_found)
            .with_state(state.clone());
        #[expect(clippy::expect_used, reason = "test fake: no loopback port is fatal")]
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1:0");
        #[expect(
            clippy::expect_used,
            reason = "test fake: a bound listener has an address"
        )]
        let addr = listener.local_addr().expect("local addr");
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Self { addr, state, task }
    }

    /// Command endpoint, the value of `CHALLENGE_SOLVER_URL` (`http://127.0.0.1:PORT/v1`).
    #[must_use]
    pub fn url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Root address (`http://127.0.0.1:PORT`).
    #[must_use]
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Serve `body` verbatim as the rendered page of `url`.
    pub fn add_page(&self, url: impl Into<String>, body: impl Into<String>) {
        lock(&self.state).pages.insert(url.into(), body.into());
    }

    /// Serve an HTML page for `url`.
    pub fn add_html(&self, url: impl Into<String>, html: impl Into<String>) {
        self.add_page(url, html);
    }

    /// Serve JSON for `url`, wrapped in Chrome's `<pre>` viewer as the real solver does.
    pub fn add_json(&self, url: impl Into<String>, value: &Value) {
        self.add_page(url, chrome_json_page(&value.to_string()));
    }

    /// Answer the next `n` `request.get` commands with `fault` (after already queued ones).
    pub fn fail_next(&self, fault: SolverFault, n: usize) {
        lock(&self.state)
            .faults
            .extend(std::iter::repeat_n(fault, n));
    }

    /// Pages of URLs not added with `add_page` come from `source` (`None`: the 404 page).
    pub fn serve_from(&self, source: PageSource) {
        lock(&self.state).source = Some(source);
    }

    /// The first `request.get` of every URL for which `rule` answers a fault gets that
    /// fault; later requests of the URL are answered normally. So each faulted item costs
    /// exactly one retry, wherever it comes in the run.
    pub fn fail_first_request(&self, rule: FaultRule) {
        lock(&self.state).first_request_rule = Some(rule);
    }

    /// How long [`SolverFault::NoAnswer`] holds its answer (default one hour).
    pub fn set_stall(&self, stall: Duration) {
        lock(&self.state).stall = Some(stall);
    }

    /// URLs answered with their page (not a fault), in order: what a crawler really read.
    #[must_use]
    pub fn served_urls(&self) -> Vec<String> {
        lock(&self.state).served.clone()
    }

    /// URLs that got a fault of [`FakeSolver::fail_first_request`], with the fault.
    #[must_use]
    pub fn faulted_urls(&self) -> Vec<(String, SolverFault)> {
        lock(&self.state).faulted.clone()
    }

    /// Forget the URLs served so far.
    pub fn clear_served(&self) {
        lock(&self.state).served.clear();
    }

    /// Every command received, in order.
    #[must_use]
    pub fn calls(&self) -> Vec<SolverCall> {
        lock(&self.state).calls.clone()
    }

    /// Number of commands `cmd` received.
    #[must_use]
    pub fn count(&self, cmd: &str) -> usize {
        lock(&self.state)
            .calls
            .iter()
            .filter(|c| c.cmd == cmd)
            .count()
    }

    /// URLs requested with `request.get`, in order.
    #[must_use]
    pub fn requested_urls(&self) -> Vec<String> {
        lock(&self.state)
            .calls
            .iter()
            .filter(|c| c.cmd == "request.get")
            .filter_map(|c| c.url.clone())
            .collect()
    }

    /// Sessions currently open.
    #[must_use]
    pub fn sessions(&self) -> Vec<String> {
        lock(&self.state).sessions.iter().cloned().collect()
    }

    /// Forget recorded calls (pages, sessions and queued faults stay).
    pub fn clear_calls(&self) {
        lock(&self.state).calls.clear();
    }
}

/// Chrome's rendering of a JSON document: text in a `<pre>`, entities escaped.
#[must_use]
pub fn chrome_json_page(json: &str) -> String {
    let escaped = json
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    format!(
        "<html><head><meta name=\"color-scheme\" content=\"light dark\"></head><body><pre style=\"word-wrap: break-word; white-space: pre-wrap;\">{escaped}</pre></body></html>"
    )
}

fn now_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or_default()
}

async fn index() -> Json<Value> {
    Json(json!({"msg": "FlareSolverr is ready!", "version": VERSION, "userAgent": USER_AGENT}))
}

async fn health() -> Json<Value> {
    Json(json!({"status": "ok"}))
}

async fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        Json(json!({"error": "Not found: 'path'", "status_code": 404})),
    )
        .into_response()
}

fn ok(message: &str, extra: Value) -> Response {
    let start = now_ms();
    let mut body = json!({
        "status": "ok",
        "message": message,
        "startTimestamp": start,
        "endTimestamp": now_ms(),
        "version": VERSION,
    });
    if let (Some(obj), Value::Object(extra)) = (body.as_object_mut(), extra) {
        obj.extend(extra);
    }
    Json(body).into_response()
}

fn error(status: StatusCode, message: &str) -> Response {
    let start = now_ms();
    (
        status,
        Json(json!({
            "status": "error",
            "message": format!("Error: {message}"),
            "startTimestamp": start,
            "endTimestamp": now_ms(),
            "version": VERSION,
        })),
    )
        .into_response()
}

fn solution(url: &str, status: u16, response: &str) -> Response {
    ok(
        "Challenge not detected!",
        json!({"solution": {
            "url": url,
            "status": status,
            "headers": {},
            "response": response,
            "cookies": [],
            "userAgent": USER_AGENT,
            "turnstile_token": null,
        }}),
    )
}

/// What one command gets: an answer now, or the stalled answer of [`SolverFault::NoAnswer`].
enum Decision {
    Now(Response),
    Stall(Duration, String),
}

async fn v1(State(state): State<Shared>, body: String) -> Response {
    match decide(&state, &body) {
        Decision::Now(r) => r,
        Decision::Stall(stall, url) => {
            tokio::time::sleep(stall).await;
            fault_response(SolverFault::NoAnswer, &url)
        }
    }
}

/// Marks an answer to be replaced by a stalled one (decided under the lock, slept outside).
#[derive(Clone)]
struct Stalled(Duration, String);

fn stall_marker(stall: Duration, url: String) -> Response {
    let mut r = StatusCode::INTERNAL_SERVER_ERROR.into_response();
    r.extensions_mut().insert(Stalled(stall, url));
    r
}

fn decide(state: &Shared, body: &str) -> Decision {
    let r = answer(state, body);
    match r.extensions().get::<Stalled>().cloned() {
        Some(Stalled(stall, url)) => Decision::Stall(stall, url),
        None => Decision::Now(r),
    }
}

fn answer(state: &Shared, body: &str) -> Response {
    let Ok(req) = serde_json::from_str::<Value>(body) else {
        return error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Request body is not JSON.",
        );
    };
    let field = |k: &str| req.get(k).and_then(Value::as_str).map(str::to_owned);
    let call = SolverCall {
        cmd: field("cmd").unwrap_or_default(),
        url: field("url"),
        session: field("session"),
        max_timeout: req.get("maxTimeout").and_then(Value::as_u64),
    };
    let mut s = lock(state);
    s.calls.push(call.clone());
    match call.cmd.as_str() {
        "" => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Request parameter 'cmd' is mandatory.",
        ),
        "sessions.create" => {
            let id = call.session.unwrap_or_else(|| {
                s.next_session += 1;
                format!("fake-session-{}", s.next_session)
            });
            let message = if s.sessions.insert(id.clone()) {
                "Session created successfully."
            } else {
                "Session already exists."
            };
            ok(message, json!({"session": id}))
        }
        "sessions.list" => {
            let list: Vec<&String> = s.sessions.iter().collect();
            ok("", json!({"sessions": list}))
        }
        "sessions.destroy" => match call.session {
            Some(id) if s.sessions.remove(&id) => ok("The session has been removed.", json!({})),
            _ => error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "The session doesn't exist.",
            ),
        },
        "request.get" => {
            let Some(url) = call.url else {
                return error(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "Request parameter 'url' is mandatory in 'request.get' command.",
                );
            };
            if let Some(id) = call.session {
                // The real solver creates unknown sessions on the fly.
                s.sessions.insert(id);
            }
            let first_fault = match s.first_request_rule.clone() {
                Some(rule) if s.seen.insert(url.clone()) => rule(&url),
                _ => None,
            };
            if let Some(fault) = first_fault {
                s.faulted.push((url.clone(), fault));
            }
            if let Some(fault) = s.faults.pop_front().or(first_fault) {
                if fault == SolverFault::NoAnswer {
                    let stall = s.stall.unwrap_or(Duration::from_secs(3600));
                    return stall_marker(stall, url);
                }
                return fault_response(fault, &url);
            }
            let page = match s.pages.get(&url) {
                Some(page) => Some(page.clone()),
                None => s.source.clone().and_then(|source| source(&url)),
            };
            match page {
                Some(page) => {
                    s.served.push(url.clone());
                    solution(&url, 200, &page)
                }
                None => solution(&url, 200, NOT_FOUND_PAGE),
            }
        }
        other => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            &format!("Request parameter 'cmd' = '{other}' is invalid."),
        ),
    }
}

const NOT_FOUND_PAGE: &str = "<html><head><title>Error 404 - Encyclopaedia Metallum</title></head><body><h1>Error 404</h1><p>Page not found.</p></body></html>";
const CHALLENGE_PAGE: &str = "<!DOCTYPE html><html lang=\"en-US\"><head><title>Just a moment...</title></head><body><div class=\"main-wrapper\"><h1>www.metal-archives.com</h1><p>Verifying you are human. This may take a few seconds.</p></div></body></html>";
const ATTENTION_PAGE: &str = "<!DOCTYPE html><html lang=\"en-US\"><head><title>Attention Required! | Cloudflare</title></head><body><div id=\"cf-wrapper\"><h1>Sorry, you have been blocked</h1><p>You are unable to access metal-archives.com</p></div></body></html>";
const ACCESS_DENIED_PAGE: &str = "<html><head><title>Access denied | www.metal-archives.com used Cloudflare to restrict access</title></head><body><h1>Access denied</h1><p>The owner of this website has banned your access.</p></body></html>";
const TOO_MANY_PAGE: &str = "<html><head><title>Too Many Requests</title></head><body><h1>429 Too Many Requests</h1></body></html>";
const GARBAGE_PAGE: &str = "<html><head><title>Encyclopaedia Metallum: The Metal Archives</title></head><body><div id=\"content_wrapper\"><p>Something went wrong.</p></div></body></html>";

fn fault_response(fault: SolverFault, url: &str) -> Response {
    match fault {
        SolverFault::Http403 => (StatusCode::FORBIDDEN, "Forbidden").into_response(),
        SolverFault::Http429 => {
            (StatusCode::TOO_MANY_REQUESTS, "Too Many Requests").into_response()
        }
        SolverFault::SolutionStatus403 => solution(url, 403, NOT_FOUND_PAGE),
        SolverFault::SolutionStatus429 => solution(url, 429, TOO_MANY_PAGE),
        SolverFault::Challenge => solution(url, 200, CHALLENGE_PAGE),
        SolverFault::AttentionRequired => solution(url, 200, ATTENTION_PAGE),
        SolverFault::AccessDenied => solution(url, 200, ACCESS_DENIED_PAGE),
        SolverFault::EmptyBody => solution(url, 200, ""),
        SolverFault::Zero => solution(url, 200, &chrome_text_page("0")),
        SolverFault::Forbidden => solution(url, 200, &chrome_text_page("Forbidden.")),
        SolverFault::GarbageHtml => solution(url, 200, GARBAGE_PAGE),
        SolverFault::Error500 | SolverFault::NoAnswer => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Error solving the challenge. Timeout after 60.0 seconds.",
        ),
        SolverFault::Blocked500 => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Error solving the challenge. Cloudflare has blocked this request. Probably your IP is banned for this site, check in your web browser.",
        ),
    }
}

/// Chrome's rendering of a plain-text body.
fn chrome_text_page(text: &str) -> String {
    format!(
        "<html><head></head><body><pre style=\"word-wrap: break-word; white-space: pre-wrap;\">{text}</pre></body></html>"
    )
}
