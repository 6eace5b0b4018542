//! The `bandmap geocoder` loop: self-repair at start and every minute, a heartbeat task,
//! and [`WORKER_TASKS`] claim loops (each claiming [`BATCH_SIZE`] rows at a time) that
//! sleep [`IDLE_POLL`] when idle. Shutdown stops the
//! loops between rows (a row in flight is finished; a killed process leaves it to the
//! self-repair).

use super::{
    BATCH_SIZE, IDLE_POLL, Outcome, STUCK_AFTER, WAIT_PREFIX, WORKER_TASKS, Worker, health,
    run_batch,
};
use crate::{Geocoder, ProviderStatus};
use bandmap_config::Config;
use bandmap_db::band_locations::upkeep;
use sqlx::PgPool;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Period of the self-repair sweep.
const REPAIR_EVERY: Duration = Duration::from_secs(60);

/// Runs the geocoding worker until `shutdown`, with its own [`Geocoder`] built from the
/// configuration (loads the gazetteer).
pub async fn run(
    pool: PgPool,
    config: Arc<Config>,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    let geocoder = Geocoder::new(pool.clone(), &config.geocoder).await?;
    run_with_geocoder(pool, config, geocoder, shutdown).await
}

/// Runs the geocoding worker until `shutdown` with a [`Geocoder`] the caller built, so one
/// process (`bandmap all`) can share it with the LLM worker: clones of a `Geocoder` share
/// one rate limiter (rule 14 spacing holds across both services), one provider client and
/// one gazetteer in memory. `config.geocoder` is not read again here.
pub async fn run_with_geocoder(
    pool: PgPool,
    config: Arc<Config>,
    geocoder: Geocoder,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    let worker = Worker::with_geocoder(pool.clone(), geocoder).with_llm(config.llm.enabled());
    tracing::info!(
        provider = ?worker.geocoder.provider_status(),
        gazetteer = ?worker.geocoder.gazetteer_size(),
        "geocoder started"
    );
    repair(&pool).await;
    if worker.geocoder.provider_status() == ProviderStatus::Ready || worker.llm_configured() {
        wake_waiting(&pool).await;
    }

    let mut tasks = tokio::task::JoinSet::new();
    {
        let w = worker.clone();
        let period = config.heartbeat_interval;
        tasks.spawn(bandmap_health::run(
            pool.clone(),
            "geocoder",
            period,
            move || health::checks(&w),
            shutdown.clone(),
        ));
    }
    tasks.spawn(repair_loop(pool.clone(), shutdown.clone()));
    for _ in 0..WORKER_TASKS {
        tasks.spawn(claim_loop(worker.clone(), shutdown.clone()));
    }
    while let Some(done) = tasks.join_next().await {
        if let Err(e) = done {
            tracing::error!(error = %e, "geocoder task ended abnormally");
        }
    }
    tracing::info!("geocoder stopped");
    Ok(())
}

async fn claim_loop(worker: Worker, shutdown: CancellationToken) {
    while !shutdown.is_cancelled() {
        let outcomes = run_batch(&worker, BATCH_SIZE).await;
        let mut progressed = false;
        for o in &outcomes {
            match o {
                Outcome::Fault { message } => tracing::warn!(error = %message, "geocoder fault"),
                Outcome::Idle => {}
                _ => progressed = true,
            }
        }
        // Nothing due, or only faults (database trouble): do not spin.
        if progressed {
            continue;
        }
        let pause = IDLE_POLL;
        tokio::select! {
            _ = tokio::time::sleep(pause) => {}
            _ = shutdown.cancelled() => return,
        }
    }
}

async fn repair_loop(pool: PgPool, shutdown: CancellationToken) {
    loop {
        tokio::select! {
            _ = tokio::time::sleep(REPAIR_EVERY) => repair(&pool).await,
            _ = shutdown.cancelled() => return,
        }
    }
}

async fn repair(pool: &PgPool) {
    match upkeep::repair_stuck(pool, STUCK_AFTER).await {
        Ok(0) => {}
        Ok(n) => tracing::warn!(rows = n, "self-repair: stuck processing rows re-queued"),
        Err(e) => tracing::warn!(error = %e, "self-repair failed"),
    }
}

/// With a provider (or an LLM) now configured, rows that were waiting for one are due at once.
async fn wake_waiting(pool: &PgPool) {
    match upkeep::wake_waiting(pool, WAIT_PREFIX).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(rows = n, "rows waiting for a provider are due now"),
        Err(e) => tracing::warn!(error = %e, "could not wake waiting rows"),
    }
}
