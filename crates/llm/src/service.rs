//! The `bandmap llm` service on the one service runtime, and its heartbeat (service `llm`): database reachable,
//! key present, API reachable (`GET {base}/models`), progress (no due row waits while no
//! call was made for 6 h). Without a key the loop idles and the heartbeat says why.

use crate::call::Caller;
use crate::client::ChatClient;
use crate::pacer::RealPacer;
use crate::recorded::Recording;
use crate::resolver::CityResolver;
use crate::settings::LlmSettings;
use crate::worker::{Outcome, Worker};
use bandmap_config::LlmMode;
use bandmap_health::{Check, database_check};
use bandmap_runtime::{Heartbeat, Pace, Pass, Runtime, Service, Unit};
use serde_json::json;
use sqlx::PgPool;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Progress window of the heartbeat.
const PROGRESS_WINDOW_HOURS: i64 = 6;

/// Longest single sleep of a paused worker; it then asks its limiter again.
const MAX_PAUSE: Duration = Duration::from_secs(15 * 60);

/// Why the worker idles without a key (heartbeat text).
pub const NO_KEY: &str = "LLM_API_KEY is not set: the LLM worker idles";

/// Builds the worker of `config` with `resolver` (no key → a worker that idles).
pub fn build_worker<R: CityResolver>(
    pool: &PgPool,
    config: &bandmap_config::LlmConfig,
    settings: LlmSettings,
    resolver: R,
) -> anyhow::Result<Worker<R>> {
    let client = match (&config.mode, &config.api_key) {
        (LlmMode::Recorded(dir), _) => {
            let recording = Recording::load(dir)?;
            tracing::info!(
                answers = recording.len(),
                dir = %dir.display(),
                "LLM answers come from a recording (LLM_MODE=recorded)"
            );
            Some(ChatClient::recorded(recording))
        }
        (LlmMode::Api, Some(key)) => Some(ChatClient::new(
            &config.base_url,
            key.clone(),
            settings.request_timeout,
        )?),
        (LlmMode::Api, None) => None,
    };
    let caller =
        client.map(|client| Caller::new(pool.clone(), client, settings, Arc::new(RealPacer)));
    Ok(Worker::new(pool.clone(), caller, resolver))
}

/// The heartbeat checks of the worker.
pub fn checks(pool: &PgPool, client: Option<&ChatClient>) -> Vec<Check> {
    let key = client.is_some();
    let recorded = client.and_then(ChatClient::recorded_answers);
    let api_client = client.cloned();
    let progress_pool = pool.clone();
    vec![
        database_check(pool),
        Check::new("api_key", async move {
            if recorded.is_some() {
                Ok(json!("not needed: recorded answers (LLM_MODE=recorded)"))
            } else if key {
                Ok(json!("present"))
            } else {
                Err(NO_KEY.to_string())
            }
        }),
        Check::new("api", async move {
            match (recorded, api_client) {
                (Some(n), _) => Ok(json!({"recorded_answers": n})),
                (None, Some(c)) => c
                    .list_models()
                    .await
                    .map(|n| json!({"models": n}))
                    .map_err(|e| format!("LLM API unreachable: {e}")),
                (None, None) => Err(format!("not checked: {NO_KEY}")),
            }
        }),
        Check::new("progress", progress(progress_pool, key)),
    ]
}

async fn progress(pool: PgPool, key: bool) -> Result<serde_json::Value, String> {
    let due = bandmap_db::band_locations::llm::due_count(&pool)
        .await
        .map_err(|e| format!("progress query failed: {e}"))?;
    let window = i32::try_from(PROGRESS_WINDOW_HOURS).unwrap_or(6);
    let recent = bandmap_db::llm_cache::called_within(&pool, window)
        .await
        .map_err(|e| format!("progress query failed: {e}"))?;
    let detail = json!({"due": due, "calls_last_6h": recent});
    if !key && due > 0 {
        Err(format!("{due} row(s) waiting; {NO_KEY}"))
    } else if due > 0 && !recent {
        Err(format!(
            "{due} row(s) waiting and no LLM call in the last {PROGRESS_WINDOW_HOURS} h"
        ))
    } else {
        Ok(detail)
    }
}

/// The loop on the one service runtime: process rows until none is due, then poll every
/// `idle_poll`; a row whose work panics or fails is logged and the next row runs; stops on
/// shutdown (abandoning a call in flight: its lease expires and the row is retried).
pub async fn run_worker<R: CityResolver + 'static>(
    pool: PgPool,
    worker: Worker<R>,
    heartbeat: Heartbeat,
    idle_poll: Duration,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    let client = worker.caller().map(|c| c.client().clone());
    if worker.caller().is_none() {
        tracing::warn!("{NO_KEY}");
    }
    let hb_pool = pool.clone();
    Runtime::new(Service::Llm, shutdown)
        .heartbeat(pool, heartbeat, move || checks(&hb_pool, client.as_ref()))
        .unit(Pace::abandoning(idle_poll), Rows(worker))
        .run()
        .await;
    Ok(())
}

/// The LLM worker's unit of work: one row ([`Worker::run_once`]).
pub struct Rows<R>(pub Worker<R>);

impl<R: CityResolver> Unit for Rows<R> {
    type Error = bandmap_db::DbError;

    async fn run(&mut self) -> Result<Pass, bandmap_db::DbError> {
        Ok(match self.0.run_once().await? {
            Outcome::Idle | Outcome::NoKey => Pass::Idle,
            // Sleep towards the reset instead of polling every few seconds: each poll would
            // only find the same block. The cap bounds the effect of an absurd reset value;
            // after it the limiter is simply asked again.
            Outcome::Paused { wait, .. } => {
                tracing::warn!(
                    wait_secs = wait.as_secs(),
                    "LLM worker paused: both models rate-limited"
                );
                Pass::Pause(wait.min(MAX_PAUSE))
            }
            o => {
                tracing::info!(outcome = ?o, "LLM row processed");
                Pass::Worked
            }
        })
    }
}
