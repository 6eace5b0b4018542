//! Fake Geoapify forward geocoding on 127.0.0.1: `GET /v1/geocode/search` speaking the
//! real `format=json` protocol (`{"results": [...], "query": {...}}`, lower-case
//! `country_code`, `rank.confidence`, `result_type`; `filter=countrycode:xx` and `limit`
//! honoured). Answers come from a map query text → results, else from a default rule.
//! Every call is recorded with its query parameters and the `Instant` it arrived; HTTP
//! errors (401, 429, 500, …) can be queued for the next calls or answered always.
//!
//! ```ignore
//! let geo = FakeGeoapify::start().await;
//! geo.set_results("Bergen, Vestland, Norway", vec![FakeGeoapify::result("Bergen", 60.39, 5.32, "city", Some(0.95), "no")]);
//! geo.fail_next(429, 1);
//! // … GEOCODER_BASE_URL = geo.base_url() …
//! assert_eq!(geo.texts(), ["Bergen, Vestland, Norway"]);
//! ```

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};

/// Answers for texts that are not in the map: `(text, country filter) → results`.
pub type Rule = Arc<dyn Fn(&str, Option<&str>) -> Vec<Value> + Send + Sync>;

/// A fault answered to the first call of a text ([`FakeGeoapify::fail_first_call`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GeoFault {
    /// HTTP status with the provider's error body (429, 500, …).
    Status(u16),
    /// No answer for this long (longer than the client's timeout), then HTTP 504.
    NoAnswer(Duration),
}

/// For a text asked for the first time: the fault it gets, if any.
pub type FaultRule = Arc<dyn Fn(&str) -> Option<GeoFault> + Send + Sync>;

/// One request the fake received.
#[derive(Debug, Clone, PartialEq)]
pub struct GeoapifyCall {
    /// Every query parameter (`text`, `filter`, `lang`, `limit`, `format`, `apiKey`, …).
    pub params: BTreeMap<String, String>,
    /// When it arrived.
    pub at: Instant,
}

impl GeoapifyCall {
    /// The `text` parameter (empty when absent).
    pub fn text(&self) -> &str {
        self.params.get("text").map_or("", String::as_str)
    }

    /// The `filter` parameter.
    pub fn filter(&self) -> Option<&str> {
        self.params.get("filter").map(String::as_str)
    }
}

struct Inner {
    answers: HashMap<String, Vec<Value>>,
    default: Rule,
    faults: VecDeque<u16>,
    always: Option<u16>,
    api_key: Option<String>,
    delay: Duration,
    calls: Vec<GeoapifyCall>,
    first_call_rule: Option<FaultRule>,
    seen: std::collections::BTreeSet<String>,
    /// Texts answered with results (not a fault), in order.
    answered: Vec<String>,
    /// Texts that got a fault of `first_call_rule`, with it.
    faulted: Vec<(String, GeoFault)>,
}

type Shared = Arc<Mutex<Inner>>;

fn lock(s: &Shared) -> MutexGuard<'_, Inner> {
    match s.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

/// A running fake; the server stops when this value drops.
pub struct FakeGeoapify {
    addr: SocketAddr,
    state: Shared,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FakeGeoapify {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl FakeGeoapify {
    /// Start on an ephemeral loopback port; unknown texts get no result.
    ///
    /// # Panics
    /// If the loopback port cannot be bound (test environment broken).
    pub async fn start() -> Self {
        let state: Shared = Arc::new(Mutex::new(Inner {
            answers: HashMap::new(),
            default: Arc::new(|_, _| Vec::new()),
            faults: VecDeque::new(),
            always: None,
            api_key: None,
            delay: Duration::ZERO,
            calls: Vec::new(),
            first_call_rule: None,
            seen: std::collections::BTreeSet::new(),
            answered: Vec::new(),
            faulted: Vec::new(),
        }));
        let app = Router::new()
            .route("/v1/geocode/search", get(search))
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

    /// The value of `GEOCODER_BASE_URL` (`http://127.0.0.1:PORT`).
    #[must_use]
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Answers `text` (exact match) with `results`.
    pub fn set_results(&self, text: impl Into<String>, results: Vec<Value>) {
        lock(&self.state).answers.insert(text.into(), results);
    }

    /// Answers texts not in the map with `rule`.
    pub fn set_default(&self, rule: Rule) {
        lock(&self.state).default = rule;
    }

    /// Default rule: every text is a city (its first comma part) in the filtered country,
    /// with the given confidence, at a point derived from the text.
    pub fn answer_every_text_as_city(&self, confidence: f64) {
        self.set_default(Arc::new(move |text, cc| {
            let name = text.split(',').next().unwrap_or(text).trim();
            let h = text
                .bytes()
                .fold(7u64, |a, b| a.wrapping_mul(31).wrapping_add(u64::from(b)));
            let lat = 40.0 + (h % 2000) as f64 / 100.0;
            let lon = (h / 2000 % 3000) as f64 / 100.0;
            vec![Self::result(
                name,
                lat,
                lon,
                "city",
                Some(confidence),
                cc.unwrap_or("xx"),
            )]
        }));
    }

    /// Answers the next `n` calls with HTTP `status` (and the provider's error body).
    pub fn fail_next(&self, status: u16, n: usize) {
        let mut s = lock(&self.state);
        s.faults.extend(std::iter::repeat_n(status, n));
    }

    /// Answers every call with HTTP `status` (`None`: normal answers again).
    pub fn fail_always(&self, status: Option<u16>) {
        lock(&self.state).always = status;
    }

    /// Requires this `apiKey`; any other (or none) gets the real 401 answer.
    pub fn require_key(&self, key: impl Into<String>) {
        lock(&self.state).api_key = Some(key.into());
    }

    /// Waits this long before answering (latency of the real service).
    pub fn set_delay(&self, delay: Duration) {
        lock(&self.state).delay = delay;
    }

    /// The first call of every text for which `rule` answers a fault gets that fault;
    /// later calls of the text are answered normally (each faulted item costs one retry).
    pub fn fail_first_call(&self, rule: FaultRule) {
        lock(&self.state).first_call_rule = Some(rule);
    }

    /// Texts answered with results (not a fault), in order: what the geocoders really got.
    pub fn answered_texts(&self) -> Vec<String> {
        lock(&self.state).answered.clone()
    }

    /// Texts that got a fault of [`FakeGeoapify::fail_first_call`], with the fault.
    pub fn faulted_texts(&self) -> Vec<(String, GeoFault)> {
        lock(&self.state).faulted.clone()
    }

    /// Every call so far, in arrival order.
    pub fn calls(&self) -> Vec<GeoapifyCall> {
        lock(&self.state).calls.clone()
    }

    /// Number of calls so far.
    pub fn call_count(&self) -> usize {
        lock(&self.state).calls.len()
    }

    /// The `text` of every call, in order.
    pub fn texts(&self) -> Vec<String> {
        lock(&self.state)
            .calls
            .iter()
            .map(|c| c.text().to_string())
            .collect()
    }

    /// Forgets the recorded calls.
    pub fn clear_calls(&self) {
        lock(&self.state).calls.clear();
    }

    /// One result object in the `format=json` layout.
    #[must_use]
    pub fn result(
        name: &str,
        lat: f64,
        lon: f64,
        result_type: &str,
        confidence: Option<f64>,
        country_code: &str,
    ) -> Value {
        let mut rank = json!({"importance": 0.5, "popularity": 5.0, "match_type": "full_match"});
        if let Some(c) = confidence {
            rank["confidence"] = json!(c);
            rank["confidence_city_level"] = json!(c);
        }
        json!({
            "datasource": {"sourcename": "openstreetmap", "attribution": "© OpenStreetMap contributors",
                           "license": "Open Database License", "url": "https://www.openstreetmap.org/copyright"},
            "name": name,
            "country_code": country_code.to_ascii_lowercase(),
            "city": name,
            "lon": lon,
            "lat": lat,
            "result_type": result_type,
            "formatted": name,
            "address_line1": name,
            "category": "administrative",
            "rank": rank,
            "place_id": format!("fake-{name}-{lat}-{lon}"),
            "bbox": {"lon1": lon - 0.1, "lat1": lat - 0.1, "lon2": lon + 0.1, "lat2": lat + 0.1}
        })
    }
}

fn error_body(status: u16) -> Value {
    let (error, message) = match status {
        401 => ("Unauthorized", "Invalid apiKey"),
        429 => (
            "Too Many Requests",
            "Request limit exceeded: too many requests in a short period",
        ),
        400 => ("Bad Request", "\"text\" is not allowed to be empty"),
        500 => ("Internal Server Error", "An internal server error occurred"),
        _ => ("Error", "fake error"),
    };
    json!({"statusCode": status, "error": error, "message": message})
}

fn status_response(status: u16) -> Response {
    let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (code, Json(error_body(status))).into_response()
}

/// What one call gets, decided under the lock.
enum Plan {
    Status(u16),
    Stall(Duration),
    Results(Vec<Value>),
}

async fn search(
    State(state): State<Shared>,
    Query(params): Query<Vec<(String, String)>>,
) -> Response {
    let params: BTreeMap<String, String> = params.into_iter().collect();
    let (plan, delay) = {
        let mut s = lock(&state);
        s.calls.push(GeoapifyCall {
            params: params.clone(),
            at: Instant::now(),
        });
        let key_ok = s
            .api_key
            .as_ref()
            .is_none_or(|k| params.get("apiKey") == Some(k));
        let text = params.get("text").map_or("", String::as_str);
        let first_fault = match s.first_call_rule.clone() {
            Some(rule) if s.seen.insert(text.to_string()) => rule(text),
            _ => None,
        };
        let plan = if let Some(st) = s.faults.pop_front().or(s.always) {
            Plan::Status(st)
        } else if let Some(fault) = first_fault {
            s.faulted.push((text.to_string(), fault));
            match fault {
                GeoFault::Status(st) => Plan::Status(st),
                GeoFault::NoAnswer(stall) => Plan::Stall(stall),
            }
        } else if !key_ok {
            Plan::Status(401)
        } else {
            let text = params.get("text").map_or("", String::as_str);
            let cc = params
                .get("filter")
                .and_then(|f| f.strip_prefix("countrycode:"))
                .map(str::to_ascii_lowercase);
            let results = match s.answers.get(text) {
                Some(r) => r.clone(),
                None => (s.default)(text, cc.as_deref()),
            };
            s.answered.push(text.to_string());
            Plan::Results(filter_and_limit(
                results,
                cc.as_deref(),
                params.get("limit"),
            ))
        };
        (plan, s.delay)
    };
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
    match plan {
        Plan::Status(st) => status_response(st),
        Plan::Stall(stall) => {
            tokio::time::sleep(stall).await;
            status_response(504)
        }
        Plan::Results(results) => {
            let text = params.get("text").cloned().unwrap_or_default();
            Json(json!({
                "results": results,
                "query": {"text": text, "parsed": {"city": text.to_lowercase(), "expected_type": "unknown"}}
            }))
            .into_response()
        }
    }
}

fn filter_and_limit(results: Vec<Value>, cc: Option<&str>, limit: Option<&String>) -> Vec<Value> {
    let limit = limit.and_then(|l| l.parse::<usize>().ok()).unwrap_or(5);
    results
        .into_iter()
        .filter(|r| match cc {
            Some(cc) => cc
                .split(',')
                .any(|c| r.get("country_code").and_then(Value::as_str) == Some(c)),
            None => true,
        })
        .take(limit)
        .collect()
}
