//! The LLM worker (`bandmap llm`, SPEC rule 21, CONTRACT §3): resolves the places the
//! geocoder could not. It claims due `llm_needed` rows, asks an OpenAI-compatible
//! chat-completions API in JSON mode for `{"city","region","country","confidence"}`
//! (cached by the sha256 of the request in `llm_cache`), geocodes the city through the
//! geocoder's own code, and writes `done` (`llm+<provider>`), `manual`, or leaves the row
//! `llm_needed` with an error. Design: `docs/llm.md`.

pub mod call;
pub mod client;
pub mod extraction;
pub mod geocoder;
pub mod limiter;
pub mod pacer;
pub mod prompt;
pub mod rate_headers;
pub mod recorded;
pub mod resolver;
pub mod service;
pub mod settings;
pub mod worker;

pub use call::{CallFor, CallResult, Caller};
pub use client::{ChatClient, ChatError};
pub use extraction::Extraction;
pub use geocoder::GeocoderResolver;
pub use pacer::{Pacer, RealPacer, VirtualPacer};
pub use recorded::Recording;
pub use resolver::CityResolver;
pub use settings::LlmSettings;
pub use worker::{Outcome, Worker};

use sqlx::PgPool;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// `bandmap llm`: the worker loop and its heartbeat until `shutdown`, with a geocoder of
/// its own. In a process that also runs the geocoding worker use [`run_with_geocoder`].
pub async fn run(
    pool: PgPool,
    config: Arc<bandmap_config::Config>,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    let geocoder = bandmap_geocode::Geocoder::new(pool.clone(), &config.geocoder).await?;
    run_with_geocoder(pool, config, geocoder, shutdown).await
}

/// The worker loop with a given geocoder. `bandmap all` passes a clone of the geocoding
/// worker's: clones share one provider rate limiter (so the two workers together keep the
/// provider's minimum delay) and one loaded gazetteer (loaded once, not twice).
pub async fn run_with_geocoder(
    pool: PgPool,
    config: Arc<bandmap_config::Config>,
    geocoder: bandmap_geocode::Geocoder,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    let settings = LlmSettings::from_config(&config.llm);
    let idle_poll = settings.idle_poll;
    let worker = service::build_worker(&pool, &config.llm, settings, GeocoderResolver(geocoder))?;
    let heartbeat = bandmap_runtime::Heartbeat::new(&config.hostname, config.heartbeat_interval);
    service::run_worker(pool, worker, heartbeat, idle_poll, shutdown).await
}

/// One unit of work of `worker` (claim one due row and write its outcome).
pub async fn run_once<R: CityResolver>(worker: &Worker<R>) -> Result<Outcome, bandmap_db::DbError> {
    worker.run_once().await
}
