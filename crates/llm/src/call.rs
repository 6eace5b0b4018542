//! One extraction: cache first, then the API under the rate limiter, with exponential
//! backoff and jitter on 429/5xx/transport errors, and the fallback model when the primary
//! is saturated (HTTP 429 or its local window full). Every API answer is recorded in
//! `llm_cache` with the model that actually answered, its tokens and its cost; a reply
//! that is not a valid extraction is recorded too (its own row, no extraction), so every
//! billed call counts in the totals. When both models are kept off for longer than one
//! backoff (a daily quota exhausted), the call is not attempted at all: the worker pauses.

use crate::client::{ChatClient, ChatError, ChatReply};
use crate::extraction::Extraction;
use crate::limiter::Limiter;
use crate::pacer::Pacer;
use crate::prompt::{ChatRequest, PromptInput};
use crate::rate_headers::RateHeaders;
use crate::settings::LlmSettings;
use bandmap_db::llm_cache::{self, NewLlmCall};
use bandmap_time::Backoff;
use rand::Rng;
use sqlx::PgPool;
use std::sync::Arc;
use std::time::Duration;

/// The row the call is made for (recorded in `llm_cache`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallFor {
    /// Band.
    pub ma_id: Option<i64>,
    /// `band_locations` row.
    pub location_id: Option<i64>,
    /// Country of the row.
    pub country: Option<String>,
}

/// What one extraction gave.
#[derive(Debug, Clone, PartialEq)]
pub enum CallResult {
    /// A valid extraction.
    Answer {
        /// The extraction.
        extraction: Extraction,
        /// Model that produced it.
        model: String,
        /// Whether it came from `llm_cache` (no API call).
        cached: bool,
    },
    /// The API answered but the content is not a valid extraction.
    Malformed {
        /// Model that answered.
        model: String,
        /// Why it was rejected.
        error: String,
    },
    /// Both models are kept off (`retry-after` or an exhausted `x-ratelimit-*` window) for
    /// longer than `backoff_max`, typically a daily quota: no call was made, and burning
    /// the row's attempts would not help.
    Paused {
        /// How long until the first model may be asked again.
        wait: Duration,
        /// What the provider last said, if anything.
        error: String,
    },
    /// No usable answer after the allowed attempts (or a refusal that retrying won't fix).
    Failed {
        /// The last error.
        error: String,
        /// API calls made.
        api_calls: u32,
    },
}

/// Makes extractions; one per worker, shared limiter state.
#[derive(Debug)]
pub struct Caller {
    pool: PgPool,
    client: ChatClient,
    settings: LlmSettings,
    limiter: Limiter,
    pacer: Arc<dyn Pacer>,
}

enum Choice {
    Go(String),
    Wait(Duration),
}

impl Caller {
    /// A caller with its own rate-limit windows.
    #[must_use]
    pub fn new(
        pool: PgPool,
        client: ChatClient,
        settings: LlmSettings,
        pacer: Arc<dyn Pacer>,
    ) -> Self {
        let limiter = Limiter::new([
            (settings.primary.id.as_str(), settings.primary.limits),
            (settings.fallback.id.as_str(), settings.fallback.limits),
        ]);
        Self {
            pool,
            client,
            settings,
            limiter,
            pacer,
        }
    }

    /// The settings in use.
    #[must_use]
    pub fn settings(&self) -> &LlmSettings {
        &self.settings
    }

    /// The HTTP client (heartbeat probe).
    #[must_use]
    pub fn client(&self) -> &ChatClient {
        &self.client
    }

    fn estimate_tokens(&self, request: &ChatRequest) -> u64 {
        let chars: usize = request.messages.iter().map(|m| m.content.len()).sum();
        (chars / 4) as u64 + u64::from(self.settings.max_tokens)
    }

    /// Primary when its window allows, else the fallback, else the shorter wait. After a
    /// reply that failed JSON validation, `avoid` names the model that produced it: the
    /// other one is tried first, since the same model at temperature 0 tends to repeat it.
    fn choose(&self, tokens: u64, avoid: Option<&str>) -> Choice {
        let now = self.pacer.now();
        let (mut p, mut f) = (&self.settings.primary.id, &self.settings.fallback.id);
        if avoid == Some(p.as_str()) {
            std::mem::swap(&mut p, &mut f);
        }
        let wp = self.limiter.wait(p, tokens, now);
        if wp.is_zero() {
            return Choice::Go(p.clone());
        }
        let wf = self.limiter.wait(f, tokens, now);
        if wf.is_zero() {
            tracing::info!(first = %p, fallback = %f, "first model saturated, using the other");
            return Choice::Go(f.clone());
        }
        Choice::Wait(wp.min(wf))
    }

    /// How long both models are still kept off, when that is longer than one backoff
    /// (`backoff_max`): the worker then pauses instead of claiming rows.
    #[must_use]
    pub fn paused_for(&self) -> Option<Duration> {
        let now = self.pacer.now();
        let wait = self
            .limiter
            .wait(&self.settings.primary.id, 1, now)
            .min(self.limiter.wait(&self.settings.fallback.id, 1, now));
        (wait > self.settings.backoff_max).then_some(wait)
    }

    /// Backoff before retry `n` (1-based): base × 2^(n−1), capped, plus up to 50 % jitter.
    fn backoff(&self, n: u32) -> Duration {
        let exp = Backoff::doubling(self.settings.backoff_base, self.settings.backoff_max).delay(n);
        exp + exp.mul_f64(rand::rng().random_range(0.0..0.5))
    }

    async fn cached(&self, key: &str) -> Result<Option<CallResult>, bandmap_db::DbError> {
        let Some(hit) = llm_cache::find_answer(&self.pool, key).await? else {
            return Ok(None);
        };
        bandmap_db::activity_counters::bump(
            &self.pool,
            bandmap_db::activity_counters::Counter::LlmCacheHit,
        )
        .await;
        Ok(Extraction::from_value(&hit.extraction)
            .ok()
            .map(|extraction| CallResult::Answer {
                extraction,
                model: hit.model,
                cached: true,
            }))
    }

    /// Extracts the place of `input`. Only database errors are returned as `Err`.
    #[tracing::instrument(skip_all, fields(location.id = ?row.location_id))]
    pub async fn extract(
        &self,
        input: &PromptInput,
        row: &CallFor,
    ) -> Result<CallResult, bandmap_db::DbError> {
        let max_tokens = self.settings.max_tokens;
        let primary = ChatRequest::new(&self.settings.primary.id, input, max_tokens);
        if let Some(hit) = self.cached(&primary.cache_key()).await? {
            return Ok(hit);
        }
        let tokens = self.estimate_tokens(&primary);
        let max = self.settings.max_attempts;
        let (mut api_calls, mut waits) = (0u32, 0u32);
        let mut last_error = String::from("no attempt made");
        let mut avoid: Option<String> = None;
        while api_calls < max {
            let model = match self.choose(tokens, avoid.as_deref()) {
                Choice::Go(m) => m,
                Choice::Wait(d) if d > self.settings.backoff_max => {
                    // A daily quota, not a busy minute: waiting here would hold the row
                    // for hours, failing it would burn its attempts for nothing.
                    return Ok(CallResult::Paused {
                        wait: d,
                        error: last_error,
                    });
                }
                Choice::Wait(d) => {
                    waits += 1;
                    if waits > max.saturating_mul(2) {
                        last_error = format!("both models saturated; last error: {last_error}");
                        break;
                    }
                    let jittered = d + d.mul_f64(rand::rng().random_range(0.0..0.1));
                    self.pacer.sleep(jittered).await;
                    continue;
                }
            };
            let request = ChatRequest::new(&model, input, max_tokens);
            if model != primary.model
                && let Some(hit) = self.cached(&request.cache_key()).await?
            {
                return Ok(hit);
            }
            self.limiter.reserve(&model, tokens, self.pacer.now());
            api_calls += 1;
            match self.client.complete(&request).await {
                Ok(reply) => return self.answered(&request, input, row, reply).await,
                Err(e) => {
                    bandmap_metrics::llm::failed(&model, e.metric_outcome());
                    last_error = e.to_string();
                    tracing::warn!(model = %model, attempt = api_calls, error = %e, "LLM call failed");
                    if !e.retryable() {
                        break;
                    }
                    if let ChatError::InvalidJson { raw, .. } = &e {
                        self.record_invalid(&request, input, row, raw).await?;
                        avoid = Some(model.clone());
                    }
                    self.after_failure(&model, &e, api_calls).await;
                }
            }
        }
        Ok(CallResult::Failed {
            error: last_error,
            api_calls,
        })
    }

    /// A generation that failed the provider's JSON validation was a real call (the model
    /// generated tokens): it gets its own `llm_cache` row, without extraction (never a
    /// cache hit) and without usage, which the error body does not report.
    async fn record_invalid(
        &self,
        request: &ChatRequest,
        input: &PromptInput,
        row: &CallFor,
        raw: &str,
    ) -> Result<(), bandmap_db::DbError> {
        let record = NewLlmCall {
            key: request.cache_key(),
            ma_id: row.ma_id,
            location_id: row.location_id,
            location_raw: Some(input.location_raw.clone()),
            country: row.country.clone(),
            model: request.model.clone(),
            extraction: None,
            prompt_tokens: None,
            completion_tokens: None,
            cost_usd: None,
            prompt: request.prompt_text(),
            response: raw.to_string(),
        };
        llm_cache::insert(&self.pool, &record).await?;
        Ok(())
    }

    /// A 429 blocks the model (the next choice falls back or waits for `retry-after`), and
    /// so does a 5xx that says when to come back (`retry-after` on a 503 "over capacity");
    /// another 5xx or a transport error waits the exponential backoff before the next
    /// attempt. A failed JSON validation is retried at once (the service is fine; `choose`
    /// moves to the other model). The block outlives this row: the next rows see the model
    /// saturated too.
    async fn after_failure(&self, model: &str, e: &ChatError, n: u32) {
        match e {
            ChatError::RateLimited { rate, .. } => {
                let pause = rate.pause().unwrap_or_else(|| self.backoff(n));
                self.limiter.block(model, pause, self.pacer.now());
            }
            ChatError::Server {
                rate:
                    RateHeaders {
                        retry_after: Some(pause),
                        ..
                    },
                ..
            } => self.limiter.block(model, *pause, self.pacer.now()),
            ChatError::InvalidJson { .. } => {}
            _ if n < self.settings.max_attempts => self.pacer.sleep(self.backoff(n)).await,
            _ => {}
        }
    }

    async fn answered(
        &self,
        request: &ChatRequest,
        input: &PromptInput,
        row: &CallFor,
        reply: ChatReply,
    ) -> Result<CallResult, bandmap_db::DbError> {
        let now = self.pacer.now();
        let used = u64::from(reply.prompt_tokens) + u64::from(reply.completion_tokens);
        self.limiter.add_tokens(
            &request.model,
            used.saturating_sub(self.estimate_tokens(request)),
            now,
        );
        if let Some(pause) = reply.rate.pause() {
            self.limiter.block(&request.model, pause, now);
        }
        let parsed = Extraction::parse(&reply.content);
        let cost = self
            .settings
            .model(&request.model)
            .and_then(|m| m.price)
            .map(|p| p.cost(reply.prompt_tokens, reply.completion_tokens));
        bandmap_metrics::llm::answered(
            &request.model,
            reply.prompt_tokens,
            reply.completion_tokens,
            cost,
        );
        let record = NewLlmCall {
            key: request.cache_key(),
            ma_id: row.ma_id,
            location_id: row.location_id,
            location_raw: Some(input.location_raw.clone()),
            country: row.country.clone(),
            model: request.model.clone(),
            extraction: parsed.as_ref().ok().map(Extraction::to_value),
            prompt_tokens: i32::try_from(reply.prompt_tokens).ok(),
            completion_tokens: i32::try_from(reply.completion_tokens).ok(),
            cost_usd: cost,
            prompt: request.prompt_text(),
            response: reply.raw,
        };
        llm_cache::insert(&self.pool, &record).await?;
        Ok(match parsed {
            Ok(extraction) => CallResult::Answer {
                extraction,
                model: request.model.clone(),
                cached: false,
            },
            Err(e) => CallResult::Malformed {
                model: request.model.clone(),
                error: e.to_string(),
            },
        })
    }
}
