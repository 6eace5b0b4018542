//! Fake OpenAI-compatible (Groq-like) API on 127.0.0.1: `POST /v1/chat/completions` and
//! `GET /v1/models`, bearer key required. Every chat request is recorded (model, full body
//! incl. `response_format`, authorization). Replies carry the configured extraction as the
//! assistant content, a realistic `usage` block and `x-ratelimit-*` headers. Faults can be
//! queued per model: HTTP 429 with `retry-after`, HTTP 500, or malformed content.
//!
//! ```ignore
//! let llm = FakeLlm::start().await;
//! llm.answer_for("Kolbotn", json!({"city": "Kolbotn", "region": null, "country": "Norway", "confidence": 0.9}));
//! llm.fail_next("llama-3.3-70b-versatile", LlmFault::RateLimited { retry_after_secs: 7 }, 1);
//! // … point LLM_BASE_URL at llm.url() …
//! assert_eq!(llm.requests()[1].model, "llama-3.1-8b-instant");
//! ```

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{Value, json};

/// A fault answered instead of a completion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LlmFault {
    /// HTTP 429 with `retry-after` in seconds.
    RateLimited {
        /// Value of the `retry-after` header.
        retry_after_secs: u64,
    },
    /// HTTP 429 without any `retry-after`.
    RateLimitedNoHeader,
    /// HTTP 500.
    ServerError,
    /// HTTP 503 with `retry-after` in seconds (Groq "over capacity").
    Unavailable {
        /// Value of the `retry-after` header.
        retry_after_secs: u64,
    },
    /// HTTP 400 `json_validate_failed` with a `failed_generation` (Groq's JSON mode).
    JsonValidateFailed,
    /// HTTP 429 of an exhausted daily quota: `x-ratelimit-remaining-requests: 0`, the reset
    /// as a Go duration and the same `retry-after`.
    DailyQuotaExhausted {
        /// Seconds until the quota resets.
        reset_secs: u64,
    },
    /// HTTP 200 whose content is not the JSON object asked for.
    Malformed,
    /// HTTP 401 (invalid key).
    Unauthorized,
}

/// One chat request received.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmRequest {
    /// `model` of the body.
    pub model: String,
    /// The whole JSON body.
    pub body: Value,
    /// `Authorization` header.
    pub authorization: Option<String>,
    /// What was answered: `ok`, `429`, `500`, `503`, `400`, `malformed`, `401`.
    pub answered: String,
}

impl LlmRequest {
    /// The user message content.
    #[must_use]
    pub fn user_message(&self) -> String {
        self.body["messages"]
            .as_array()
            .and_then(|m| m.iter().find(|m| m["role"] == "user"))
            .and_then(|m| m["content"].as_str())
            .unwrap_or_default()
            .to_string()
    }
}

#[derive(Debug, Default)]
struct Inner {
    default_answer: Option<Value>,
    answers: Vec<(String, Value)>,
    faults: HashMap<String, VecDeque<LlmFault>>,
    requests: Vec<LlmRequest>,
    model_lists: usize,
}

type Shared = Arc<Mutex<Inner>>;

fn lock(s: &Shared) -> MutexGuard<'_, Inner> {
    s.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A running fake; the server stops when this is dropped.
#[derive(Debug)]
pub struct FakeLlm {
    addr: SocketAddr,
    state: Shared,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FakeLlm {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Models listed by `GET /v1/models`.
pub const MODELS: [&str; 2] = ["llama-3.3-70b-versatile", "llama-3.1-8b-instant"];

impl FakeLlm {
    /// Start on an ephemeral loopback port.
    ///
    /// # Panics
    /// If the loopback port cannot be bound (test environment broken).
    pub async fn start() -> Self {
        let state: Shared = Arc::default();
        let app = Router::new()
            .route("/v1/chat/completions", post(chat))
            .route("/v1/models", get(models))
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

    /// The value of `LLM_BASE_URL` (`http://127.0.0.1:PORT/v1`).
    #[must_use]
    pub fn url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Extraction answered when no `answer_for` matches (default: city null).
    pub fn answer(&self, extraction: Value) {
        lock(&self.state).default_answer = Some(extraction);
    }

    /// Extraction answered when the user message contains `needle` (first match wins).
    pub fn answer_for(&self, needle: impl Into<String>, extraction: Value) {
        lock(&self.state).answers.push((needle.into(), extraction));
    }

    /// Answer the next `n` requests for `model` with `fault` (`"*"`: any model).
    pub fn fail_next(&self, model: &str, fault: LlmFault, n: usize) {
        lock(&self.state)
            .faults
            .entry(model.to_string())
            .or_default()
            .extend(std::iter::repeat_n(fault, n));
    }

    /// Every chat request received, in order.
    #[must_use]
    pub fn requests(&self) -> Vec<LlmRequest> {
        lock(&self.state).requests.clone()
    }

    /// Number of chat requests received.
    #[must_use]
    pub fn count(&self) -> usize {
        lock(&self.state).requests.len()
    }

    /// Number of `GET /v1/models` received.
    #[must_use]
    pub fn model_lists(&self) -> usize {
        lock(&self.state).model_lists
    }
}

fn authorized(headers: &HeaderMap) -> Option<String> {
    headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .filter(|v| v.starts_with("Bearer ") && v.len() > 7)
        .map(str::to_string)
}

fn error_body(status: StatusCode, message: &str, kind: &str) -> Response {
    (
        status,
        Json(json!({"error": {"message": message, "type": kind, "code": kind}})),
    )
        .into_response()
}

async fn models(State(state): State<Shared>, headers: HeaderMap) -> Response {
    if authorized(&headers).is_none() {
        return error_body(
            StatusCode::UNAUTHORIZED,
            "Invalid API Key",
            "invalid_api_key",
        );
    }
    lock(&state).model_lists += 1;
    let data: Vec<Value> = MODELS
        .iter()
        .map(|id| json!({"id": id, "object": "model", "owned_by": "Meta", "active": true, "context_window": 131_072}))
        .collect();
    Json(json!({"object": "list", "data": data})).into_response()
}

/// Roughly four characters per token, as a tokenizer would count English text.
fn tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4).max(1)
}

async fn chat(State(state): State<Shared>, headers: HeaderMap, body: String) -> Response {
    let auth = authorized(&headers);
    let Ok(body) = serde_json::from_str::<Value>(&body) else {
        return error_body(
            StatusCode::BAD_REQUEST,
            "body is not JSON",
            "invalid_request_error",
        );
    };
    let model = body["model"].as_str().unwrap_or_default().to_string();
    let mut inner = lock(&state);
    let fault = if auth.is_none() {
        Some(LlmFault::Unauthorized)
    } else {
        [model.as_str(), "*"]
            .iter()
            .find_map(|m| inner.faults.get_mut(*m).and_then(VecDeque::pop_front))
    };
    let record = |inner: &mut Inner, answered: &str| {
        inner.requests.push(LlmRequest {
            model: model.clone(),
            body: body.clone(),
            authorization: auth.clone(),
            answered: answered.to_string(),
        });
    };
    match fault {
        Some(LlmFault::RateLimited { retry_after_secs }) => {
            record(&mut inner, "429");
            let mut r = error_body(
                StatusCode::TOO_MANY_REQUESTS,
                &format!(
                    "Rate limit reached for model `{model}`: Requests per minute (RPM): Limit 30, Used 30. Please try again in {retry_after_secs}s."
                ),
                "rate_limit_exceeded",
            );
            if let Ok(v) = retry_after_secs.to_string().parse() {
                r.headers_mut().insert("retry-after", v);
            }
            return r;
        }
        Some(LlmFault::RateLimitedNoHeader) => {
            record(&mut inner, "429");
            return error_body(
                StatusCode::TOO_MANY_REQUESTS,
                "Rate limit reached",
                "rate_limit_exceeded",
            );
        }
        Some(LlmFault::ServerError) => {
            record(&mut inner, "500");
            return error_body(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Internal Server Error",
                "internal_server_error",
            );
        }
        Some(LlmFault::Unavailable { retry_after_secs }) => {
            record(&mut inner, "503");
            let mut r = error_body(
                StatusCode::SERVICE_UNAVAILABLE,
                "Service Unavailable: the model is over capacity",
                "service_unavailable",
            );
            if let Ok(v) = retry_after_secs.to_string().parse() {
                r.headers_mut().insert("retry-after", v);
            }
            return r;
        }
        Some(LlmFault::JsonValidateFailed) => {
            record(&mut inner, "400");
            return (
                StatusCode::BAD_REQUEST,
                Json(json!({"error": {
                    "message": "Failed to generate JSON. Please adjust your prompt. See 'failed_generation' for more details.",
                    "type": "invalid_request_error",
                    "code": "json_validate_failed",
                    "failed_generation": "{\"city\": \"Oslo\", \"confidence\": "
                }})),
            )
                .into_response();
        }
        Some(LlmFault::DailyQuotaExhausted { reset_secs }) => {
            record(&mut inner, "429");
            let mut r = error_body(
                StatusCode::TOO_MANY_REQUESTS,
                &format!(
                    "Rate limit reached for model `{model}`: Requests per day (RPD): Limit 1000, Used 1000. Please try again in {reset_secs}s."
                ),
                "rate_limit_exceeded",
            );
            let reset = format!(
                "{}h{}m{}s",
                reset_secs / 3600,
                reset_secs % 3600 / 60,
                reset_secs % 60
            );
            for (k, v) in [
                ("retry-after", reset_secs.to_string()),
                ("x-ratelimit-remaining-requests", "0".to_string()),
                ("x-ratelimit-reset-requests", reset),
            ] {
                if let Ok(v) = v.parse() {
                    r.headers_mut().insert(k, v);
                }
            }
            return r;
        }
        Some(LlmFault::Unauthorized) => {
            record(&mut inner, "401");
            return error_body(
                StatusCode::UNAUTHORIZED,
                "Invalid API Key",
                "invalid_api_key",
            );
        }
        Some(LlmFault::Malformed) => {
            record(&mut inner, "malformed");
            return completion(
                &model,
                &body,
                "Sure! The band is from Oslo, Norway.".to_string(),
            );
        }
        None => {}
    }
    record(&mut inner, "ok");
    let user = body["messages"]
        .as_array()
        .and_then(|m| m.iter().find(|m| m["role"] == "user"))
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_string();
    let extraction = inner
        .answers
        .iter()
        .find(|(needle, _)| user.contains(needle.as_str()))
        .map(|(_, v)| v.clone())
        .or_else(|| inner.default_answer.clone())
        .unwrap_or_else(
            || json!({"city": null, "region": null, "country": null, "confidence": 0.0}),
        );
    drop(inner);
    completion(&model, &body, extraction.to_string())
}

fn completion(model: &str, body: &Value, content: String) -> Response {
    let prompt: String = body["messages"]
        .as_array()
        .map(|m| {
            m.iter()
                .filter_map(|m| m["content"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default();
    let (p, c) = (tokens(&prompt) + 10, tokens(&content));
    let reply = json!({
        "id": format!("chatcmpl-fake-{p}-{c}"),
        "object": "chat.completion",
        "created": 1_767_139_200,
        "model": model,
        "system_fingerprint": "fp_fake",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                     "logprobs": null, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c,
                  "queue_time": 0.01, "prompt_time": 0.003, "completion_time": 0.02, "total_time": 0.033},
        "x_groq": {"id": "req_fake"}
    });
    let mut r = Json(reply).into_response();
    for (k, v) in [
        ("x-ratelimit-limit-requests", "14400"),
        ("x-ratelimit-remaining-requests", "14399"),
        ("x-ratelimit-reset-requests", "6s"),
        ("x-ratelimit-limit-tokens", "6000"),
        ("x-ratelimit-remaining-tokens", "5800"),
        ("x-ratelimit-reset-tokens", "2.5s"),
    ] {
        if let Ok(v) = v.parse() {
            r.headers_mut().insert(k, v);
        }
    }
    r
}
