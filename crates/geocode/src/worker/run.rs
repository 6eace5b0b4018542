//! The `bandmap geocoder` loop: self-repair at start and every minute, a heartbeat task,
//! and [`WORKER_TASKS`] claim loops that sleep [`IDLE_POLL`] when idle. Shutdown stops the
//! loops between rows (a row in flight is finished; a killed process leaves it to the
//! self-repair).

use super::{IDLE_POLL, Outcome, STUCK_AFTER, WAIT_PREFIX, WORKER_TASKS, Worker, health, run_once};
use crate::ProviderStatus;
use bandmap_config::Config;
use bandmap_db::band_locations::geocoding;
use bandmap_health::Shutdown;
use sqlx::PgPool;
use std::sync::Arc;
use std::time::Duration;

/// Period of the self-repair sweep.
const REPAIR_EVERY: Duration = Duration::from_secs(60);

/// Runs the geocoding worker until `shutdown`.
pub async fn run(pool: PgPool, config: Arc<Config>, shutdown: Shutdown) -> anyhow::Result<()> {
    let worker = Worker::new(pool.clone(), &config.geocoder).await?;
    tracing::info!(
        provider = ?worker.geocoder.provider_status(),
        gazetteer = ?worker.geocoder.gazetteer_size(),
        "geocoder started"
    );
    repair(&pool).await;
    if worker.geocoder.provider_status() == ProviderStatus::Ready {
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

async fn claim_loop(worker: Worker, mut shutdown: Shutdown) {
    while !shutdown.is_cancelled() {
        let outcome = run_once(&worker).await;
        let pause = match &outcome {
            Outcome::Idle => IDLE_POLL,
            Outcome::Fault { message } => {
                tracing::warn!(error = %message, "geocoder fault");
                IDLE_POLL
            }
            _ => continue,
        };
        tokio::select! {
            _ = tokio::time::sleep(pause) => {}
            _ = shutdown.cancelled() => return,
        }
    }
}

async fn repair_loop(pool: PgPool, mut shutdown: Shutdown) {
    loop {
        tokio::select! {
            _ = tokio::time::sleep(REPAIR_EVERY) => repair(&pool).await,
            _ = shutdown.cancelled() => return,
        }
    }
}

async fn repair(pool: &PgPool) {
    match geocoding::repair_stuck(pool, STUCK_AFTER).await {
        Ok(0) => {}
        Ok(n) => tracing::warn!(rows = n, "self-repair: stuck processing rows re-queued"),
        Err(e) => tracing::warn!(error = %e, "self-repair failed"),
    }
}

/// With a provider now configured, rows that were waiting for one are due at once.
async fn wake_waiting(pool: &PgPool) {
    match geocoding::wake_waiting(pool, WAIT_PREFIX).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(rows = n, "rows waiting for a provider are due now"),
        Err(e) => tracing::warn!(error = %e, "could not wake waiting rows"),
    }
}
