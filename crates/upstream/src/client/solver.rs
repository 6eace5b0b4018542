//! FlareSolverr-compatible client: one persistent browser session, reused by every
//! `request.get`, one request at a time (a browser holds one page). Session faults
//! (CONTRACT §8) destroy and recreate the session, then retry with exponential backoff, at
//! most `max_retries` times; other solver errors are retried without a new session. The
//! last error is returned for that item only: the client stays usable.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bandmap_time::Backoff;
use serde_json::{Value, json};
use tokio::sync::Mutex;

use super::{ClientStats, FaultKind, FetchError};
use crate::parse::{ParseError, block_page, unwrap_json};

/// Settings of the solver client.
#[derive(Debug, Clone)]
pub struct SolverConfig {
    /// Solver command endpoint (`CHALLENGE_SOLVER_URL`, e.g. `http://localhost:8191/v1`).
    pub url: String,
    /// `maxTimeout` sent with each request, in milliseconds.
    pub max_timeout_ms: u64,
    /// `session_ttl_minutes` sent with each request (the solver recycles older browsers).
    pub session_ttl_minutes: Option<u32>,
    /// Retries after the first attempt (CONTRACT §8: 3).
    pub max_retries: u32,
    /// Delay before the first retry; doubled for each further one.
    pub backoff_base: Duration,
    /// Upper bound of one backoff delay.
    pub backoff_max: Duration,
}

impl SolverConfig {
    /// Defaults for a real solver at `url`.
    #[must_use]
    pub fn new(url: &str) -> Self {
        Self {
            url: url.to_owned(),
            max_timeout_ms: 120_000,
            session_ttl_minutes: Some(60),
            max_retries: 3,
            backoff_base: Duration::from_secs(2),
            backoff_max: Duration::from_secs(60),
        }
    }

    /// The same settings with a different backoff base (tests use milliseconds).
    #[must_use]
    pub fn with_backoff(mut self, base: Duration) -> Self {
        self.backoff_base = base;
        self
    }

    fn backoff(&self, retry: u32) -> Duration {
        Backoff::doubling(self.backoff_base, self.backoff_max).delay(retry)
    }

    /// Solver root (the command URL without its trailing `/v1`).
    fn root(&self) -> &str {
        let u = self.url.trim_end_matches('/');
        u.strip_suffix("/v1").unwrap_or(u)
    }
}

#[derive(Debug, Default)]
struct Counters {
    requests: AtomicU64,
    sessions_created: AtomicU64,
    session_recreations: AtomicU64,
    faults: AtomicU64,
    retries: AtomicU64,
}

fn bump(c: &AtomicU64) {
    c.fetch_add(1, Ordering::Relaxed);
}

/// Client of a FlareSolverr-compatible challenge solver.
#[derive(Debug)]
pub struct SolverClient {
    http: reqwest::Client,
    cfg: SolverConfig,
    /// The current session id; the lock also serialises requests (one page per browser).
    session: Mutex<Option<String>>,
    counters: Counters,
    seq: AtomicU64,
}

impl SolverClient {
    /// Build the client. No request is made: the session is created at the first fetch.
    pub fn new(cfg: SolverConfig) -> Result<Self, FetchError> {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .timeout(Duration::from_millis(cfg.max_timeout_ms) + Duration::from_secs(30))
            .build()
            .map_err(|e| FetchError::Setup(e.to_string()))?;
        Ok(Self {
            http,
            cfg,
            session: Mutex::new(None),
            counters: Counters::default(),
            seq: AtomicU64::new(0),
        })
    }

    /// Fetch an HTML page. Empty bodies and challenge/block pages are session faults.
    pub async fn get_html(&self, url: &str) -> Result<String, FetchError> {
        self.fetch(url, |body| {
            check_page(&body)?;
            Ok(body)
        })
        .await
    }

    /// Fetch a JSON endpoint. Anything but JSON in the body is a session fault.
    pub async fn get_json(&self, url: &str) -> Result<Value, FetchError> {
        self.fetch(url, |body| {
            check_page(&body)?;
            unwrap_json(&body).map_err(|e: ParseError| {
                tracing::debug!(error = %e, "expected JSON");
                FaultKind::NotJson
            })
        })
        .await
    }

    /// Is the solver up? `GET /health`, falling back to `GET /`.
    pub async fn ping(&self) -> Result<(), FetchError> {
        let mut last = None;
        for path in ["/health", "/"] {
            let url = format!("{}{path}", self.cfg.root());
            match self.http.get(&url).send().await {
                Ok(r) if r.status().is_success() => return Ok(()),
                Ok(r) => {
                    last = Some(FetchError::Protocol {
                        url,
                        detail: format!("HTTP {}", r.status()),
                    });
                }
                Err(source) => return Err(FetchError::Transport { url, source }),
            }
        }
        Err(last.unwrap_or_else(|| FetchError::Protocol {
            url: self.cfg.root().to_owned(),
            detail: "no answer".into(),
        }))
    }

    /// Destroy the session, if any. Later fetches create a new one.
    pub async fn shutdown(&self) {
        let mut guard = self.session.lock().await;
        if let Some(id) = guard.take() {
            self.destroy(&id).await;
        }
    }

    /// Activity counters.
    #[must_use]
    pub fn stats(&self) -> ClientStats {
        let c = &self.counters;
        ClientStats {
            requests: c.requests.load(Ordering::Relaxed),
            sessions_created: c.sessions_created.load(Ordering::Relaxed),
            session_recreations: c.session_recreations.load(Ordering::Relaxed),
            faults: c.faults.load(Ordering::Relaxed),
            retries: c.retries.load(Ordering::Relaxed),
        }
    }

    async fn fetch<T>(
        &self,
        url: &str,
        read: impl Fn(String) -> Result<T, FaultKind>,
    ) -> Result<T, FetchError> {
        let mut session = self.session.lock().await;
        let attempts = self.cfg.max_retries.saturating_add(1);
        let mut last = None;
        for attempt in 0..attempts {
            if attempt > 0 {
                bump(&self.counters.retries);
                tokio::time::sleep(self.cfg.backoff(attempt)).await;
            }
            let result = match self.attempt(&mut session, url).await {
                Ok(body) => read(body).map_err(|kind| FetchError::Fault {
                    url: url.to_owned(),
                    kind,
                }),
                Err(e) => Err(e),
            };
            match result {
                Ok(v) => return Ok(v),
                Err(e) => {
                    tracing::warn!(url, attempt, error = %e, "upstream fetch attempt failed");
                    if let FetchError::Fault { .. } = e {
                        bump(&self.counters.faults);
                        self.recreate(&mut session, url).await;
                    }
                    last = Some(e);
                }
            }
        }
        Err(FetchError::Exhausted {
            url: url.to_owned(),
            attempts,
            last: Box::new(last.unwrap_or_else(|| FetchError::Protocol {
                url: url.to_owned(),
                detail: "no attempt made".into(),
            })),
        })
    }

    /// One `request.get` in the current session (creating it first when needed).
    async fn attempt(&self, session: &mut Option<String>, url: &str) -> Result<String, FetchError> {
        let id = match session.as_ref() {
            Some(id) => id.clone(),
            None => {
                let id = self.create(url).await?;
                *session = Some(id.clone());
                id
            }
        };
        let mut cmd = json!({
            "cmd": "request.get",
            "url": url,
            "session": id,
            "maxTimeout": self.cfg.max_timeout_ms,
        });
        if let Some(ttl) = self.cfg.session_ttl_minutes {
            cmd["session_ttl_minutes"] = json!(ttl);
        }
        bump(&self.counters.requests);
        let answer = self.command(&cmd, url).await?;
        let solution = answer
            .get("solution")
            .ok_or_else(|| protocol(url, "no solution"))?;
        if let Some(status @ (403 | 429)) = solution.get("status").and_then(Value::as_u64) {
            return Err(FetchError::Fault {
                url: url.to_owned(),
                kind: FaultKind::UpstreamStatus(u16::try_from(status).unwrap_or(403)),
            });
        }
        solution
            .get("response")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| protocol(url, "no solution.response"))
    }

    /// POST one command; maps the solver's own faults and errors.
    async fn command(&self, cmd: &Value, url: &str) -> Result<Value, FetchError> {
        let resp = self
            .http
            .post(&self.cfg.url)
            .json(cmd)
            .send()
            .await
            .map_err(|source| FetchError::Transport {
                url: url.to_owned(),
                source,
            })?;
        let status = resp.status().as_u16();
        if matches!(status, 403 | 429) {
            return Err(FetchError::Fault {
                url: url.to_owned(),
                kind: FaultKind::SolverHttp(status),
            });
        }
        let text = resp.text().await.map_err(|source| FetchError::Transport {
            url: url.to_owned(),
            source,
        })?;
        let body: Value = serde_json::from_str(&text)
            .map_err(|_| protocol(url, &format!("HTTP {status}, body not JSON")))?;
        let ok = body.get("status").and_then(Value::as_str) == Some("ok");
        if ok && (200..300).contains(&status) {
            return Ok(body);
        }
        let message = body
            .get("message")
            .or_else(|| body.get("error"))
            .and_then(Value::as_str)
            .unwrap_or("no message")
            .to_owned();
        if message.to_ascii_lowercase().contains("blocked") {
            return Err(FetchError::Fault {
                url: url.to_owned(),
                kind: FaultKind::SolverBlocked(message),
            });
        }
        Err(FetchError::Solver {
            url: url.to_owned(),
            message,
        })
    }

    async fn create(&self, url: &str) -> Result<String, FetchError> {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        let seq = self.seq.fetch_add(1, Ordering::Relaxed);
        let id = format!("bandmap-{}-{nanos:x}-{seq}", std::process::id());
        self.command(&json!({"cmd": "sessions.create", "session": id}), url)
            .await?;
        bump(&self.counters.sessions_created);
        tracing::info!(session = %id, "challenge-solver session created");
        Ok(id)
    }

    async fn destroy(&self, id: &str) {
        let cmd = json!({"cmd": "sessions.destroy", "session": id});
        if let Err(e) = self.command(&cmd, "sessions.destroy").await {
            tracing::debug!(session = %id, error = %e, "session destroy failed");
        }
    }

    /// Replace a spent session: destroy it and create a fresh one (a failed creation is
    /// retried by the next attempt).
    async fn recreate(&self, session: &mut Option<String>, url: &str) {
        bump(&self.counters.session_recreations);
        if let Some(id) = session.take() {
            self.destroy(&id).await;
        }
        match self.create(url).await {
            Ok(id) => *session = Some(id),
            Err(e) => tracing::warn!(error = %e, "session recreation failed"),
        }
    }
}

/// Faults visible in any page: empty bodies and challenge/block pages.
fn check_page(body: &str) -> Result<(), FaultKind> {
    if body.trim().is_empty() {
        return Err(FaultKind::EmptyBody);
    }
    match block_page(body) {
        Some(kind) => Err(FaultKind::BlockPage(kind)),
        None => Ok(()),
    }
}

fn protocol(url: &str, detail: &str) -> FetchError {
    FetchError::Protocol {
        url: url.to_owned(),
        detail: detail.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_and_caps() {
        let cfg = SolverConfig::new("http://x/v1").with_backoff(Duration::from_secs(1));
        assert_eq!(cfg.backoff(1), Duration::from_secs(1));
        assert_eq!(cfg.backoff(3), Duration::from_secs(4));
        assert_eq!(cfg.backoff(40), Duration::from_secs(60));
        assert_eq!(cfg.root(), "http://x");
    }
}
