//! HTTP client of an OpenAI-compatible API: `POST {base}/chat/completions` and
//! `GET {base}/models`, bearer key. It classifies failures (429, 5xx, other 4xx, transport)
//! and reads the rate-limit headers; it never retries by itself (see `call`).

use crate::prompt::ChatRequest;
use crate::rate_headers::RateHeaders;
use crate::recorded::Recording;
use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use std::sync::Arc;
use std::time::Duration;

/// One failed HTTP exchange.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ChatError {
    /// HTTP 429: the model is saturated.
    #[error("rate limited (HTTP 429): {message}")]
    RateLimited {
        /// Rate headers of the answer (`retry-after` included).
        rate: RateHeaders,
        /// Provider's message.
        message: String,
    },
    /// HTTP 5xx: worth retrying.
    #[error("server error (HTTP {status}): {message}")]
    Server {
        /// Status code.
        status: u16,
        /// Rate headers of the answer (a 503 may carry `retry-after`).
        rate: RateHeaders,
        /// Provider's message.
        message: String,
    },
    /// HTTP 400 `json_validate_failed`: the model generated output that is not valid JSON
    /// (Groq's JSON mode checks it server-side). The request itself is fine, so another
    /// attempt (or the other model) may succeed.
    #[error("model output failed JSON validation (HTTP 400 json_validate_failed): {message}")]
    InvalidJson {
        /// Provider's message.
        message: String,
        /// The raw error body (with `failed_generation`), recorded in `llm_cache`.
        raw: String,
    },
    /// Another 4xx (bad key, bad request): retrying the same request will not help.
    #[error("request refused (HTTP {status}): {message}")]
    Refused {
        /// Status code.
        status: u16,
        /// Provider's message.
        message: String,
    },
    /// No answer (connection, timeout).
    #[error("transport error: {0}")]
    Transport(String),
    /// A 2xx whose body is not a chat completion.
    #[error("unexpected response body: {0}")]
    BadBody(String),
}

impl ChatError {
    /// The `outcome` label of this failure in the metrics (a fixed name per variant).
    #[must_use]
    pub fn metric_outcome(&self) -> &'static str {
        match self {
            ChatError::RateLimited { .. } => "rate_limited",
            ChatError::Server { .. } => "server_error",
            ChatError::InvalidJson { .. } => "invalid_json",
            ChatError::Refused { .. } => "refused",
            ChatError::Transport(_) => "transport_error",
            ChatError::BadBody(_) => "bad_body",
        }
    }

    /// Whether another attempt may succeed.
    #[must_use]
    pub fn retryable(&self) -> bool {
        matches!(
            self,
            Self::RateLimited { .. }
                | Self::Server { .. }
                | Self::InvalidJson { .. }
                | Self::Transport(_)
        )
    }
}

/// A successful completion.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatReply {
    /// The assistant message content.
    pub content: String,
    /// Prompt tokens billed.
    pub prompt_tokens: u32,
    /// Completion tokens billed.
    pub completion_tokens: u32,
    /// The raw response body.
    pub raw: String,
    /// Rate headers of the answer.
    pub rate: RateHeaders,
}

#[derive(Deserialize)]
struct Completion {
    choices: Vec<Choice>,
    usage: Option<Usage>,
}

#[derive(Deserialize)]
struct Choice {
    message: ChoiceMessage,
}

#[derive(Deserialize)]
struct ChoiceMessage {
    content: Option<String>,
}

#[derive(Deserialize)]
struct Usage {
    prompt_tokens: Option<u32>,
    completion_tokens: Option<u32>,
}

/// The client; cheap to clone. It asks the API, or reads recorded answers
/// (`LLM_MODE=recorded:DIR`, see `recorded`).
#[derive(Clone)]
pub struct ChatClient {
    backend: Backend,
}

#[derive(Clone)]
enum Backend {
    Http {
        http: reqwest::Client,
        base: String,
        key: SecretString,
    },
    Recorded(Arc<Recording>),
}

impl std::fmt::Debug for ChatClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.backend {
            Backend::Http { base, .. } => f
                .debug_struct("ChatClient")
                .field("base", base)
                .finish_non_exhaustive(),
            Backend::Recorded(r) => f
                .debug_struct("ChatClient")
                .field("recorded_answers", &r.len())
                .finish_non_exhaustive(),
        }
    }
}

impl ChatClient {
    /// A client of `base` (e.g. `https://api.groq.com/openai/v1`) with `key`.
    pub fn new(base: &url::Url, key: SecretString, timeout: Duration) -> Result<Self, ChatError> {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(Duration::from_secs(10))
            .build()
            .map_err(|e| ChatError::Transport(e.to_string()))?;
        Ok(Self {
            backend: Backend::Http {
                http,
                base: base.as_str().trim_end_matches('/').to_string(),
                key,
            },
        })
    }

    /// A client answering from a recording instead of the API (no key, no network).
    #[must_use]
    pub fn recorded(recording: Recording) -> Self {
        Self {
            backend: Backend::Recorded(Arc::new(recording)),
        }
    }

    /// The number of recorded answers, when this client replays a recording.
    #[must_use]
    pub fn recorded_answers(&self) -> Option<usize> {
        match &self.backend {
            Backend::Recorded(r) => Some(r.len()),
            Backend::Http { .. } => None,
        }
    }

    /// `POST {base}/chat/completions` with the canonical body of `request`.
    #[tracing::instrument(skip_all, fields(model = %request.model))]
    pub async fn complete(&self, request: &ChatRequest) -> Result<ChatReply, ChatError> {
        let (http, base, key) = match &self.backend {
            Backend::Http { http, base, key } => (http, base, key),
            Backend::Recorded(r) => return r.complete(request),
        };
        let response = http
            .post(format!("{base}/chat/completions"))
            .bearer_auth(key.expose_secret())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(request.canonical())
            .send()
            .await
            .map_err(|e| ChatError::Transport(e.without_url().to_string()))?;
        let status = response.status().as_u16();
        let rate = RateHeaders::from_headers(response.headers());
        let raw = response
            .text()
            .await
            .map_err(|e| ChatError::Transport(e.without_url().to_string()))?;
        match status {
            200..=299 => parse_completion(raw, rate),
            429 => Err(ChatError::RateLimited {
                rate,
                message: error_message(&raw),
            }),
            500..=599 => Err(ChatError::Server {
                status,
                rate,
                message: error_message(&raw),
            }),
            400 if error_code(&raw).as_deref() == Some("json_validate_failed") => {
                Err(ChatError::InvalidJson {
                    message: error_message(&raw),
                    raw,
                })
            }
            _ => Err(ChatError::Refused {
                status,
                message: error_message(&raw),
            }),
        }
    }

    /// `GET {base}/models`: the reachability probe of the heartbeat; returns the number of
    /// models listed.
    pub async fn list_models(&self) -> Result<usize, ChatError> {
        let (http, base, key) = match &self.backend {
            Backend::Http { http, base, key } => (http, base, key),
            // The recording answers as the primary and the fallback model alike.
            Backend::Recorded(_) => return Ok(2),
        };
        let response = http
            .get(format!("{base}/models"))
            .bearer_auth(key.expose_secret())
            .send()
            .await
            .map_err(|e| ChatError::Transport(e.without_url().to_string()))?;
        let status = response.status().as_u16();
        let raw = response
            .text()
            .await
            .map_err(|e| ChatError::Transport(e.without_url().to_string()))?;
        if !(200..300).contains(&status) {
            return Err(ChatError::Refused {
                status,
                message: error_message(&raw),
            });
        }
        let body: serde_json::Value =
            serde_json::from_str(&raw).map_err(|e| ChatError::BadBody(e.to_string()))?;
        Ok(body["data"].as_array().map_or(0, Vec::len))
    }
}

fn parse_completion(raw: String, rate: RateHeaders) -> Result<ChatReply, ChatError> {
    let body: Completion =
        serde_json::from_str(&raw).map_err(|e| ChatError::BadBody(e.to_string()))?;
    let content = body
        .choices
        .into_iter()
        .next()
        .and_then(|c| c.message.content)
        .ok_or_else(|| ChatError::BadBody("no choice with content".into()))?;
    let usage = body.usage;
    Ok(ChatReply {
        content,
        prompt_tokens: usage.as_ref().and_then(|u| u.prompt_tokens).unwrap_or(0),
        completion_tokens: usage
            .as_ref()
            .and_then(|u| u.completion_tokens)
            .unwrap_or(0),
        raw,
        rate,
    })
}

/// The provider's `error.code` (e.g. `json_validate_failed`).
fn error_code(raw: &str) -> Option<String> {
    serde_json::from_str::<serde_json::Value>(raw)
        .ok()
        .and_then(|v| v["error"]["code"].as_str().map(str::to_string))
}

/// The provider's `error.message`, else the start of the body.
fn error_message(raw: &str) -> String {
    serde_json::from_str::<serde_json::Value>(raw)
        .ok()
        .and_then(|v| v["error"]["message"].as_str().map(str::to_string))
        .unwrap_or_else(|| raw.chars().take(200).collect())
}
