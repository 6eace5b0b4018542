//! The `bandmap geocoder` service on the one service runtime: self-repair at start and
//! every minute ([`Repair`]), a heartbeat, and [`WORKER_TASKS`] loops of [`Batches`] (each
//! claiming [`BATCH_SIZE`] rows at a time) that sleep [`IDLE_POLL`] when idle. Shutdown
//! stops the loops between batches (a batch in flight is finished; a killed process leaves
//! its rows to the self-repair).

use super::{
    BATCH_SIZE, IDLE_POLL, Outcome, STUCK_AFTER, WAIT_PREFIX, WORKER_TASKS, Worker, health,
    run_batch,
};
use crate::{Geocoder, ProviderStatus};
use bandmap_config::Config;
use bandmap_db::band_locations::upkeep;
use bandmap_runtime::{Heartbeat, Pace, Pass, Runtime, Service, Unit};
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

    let w = worker.clone();
    Runtime::new(Service::Geocoder, shutdown)
        .heartbeat(
            pool.clone(),
            Heartbeat::new(&config.hostname, config.heartbeat_interval),
            move || health::checks(&w),
        )
        .unit(Pace::finishing(REPAIR_EVERY), Repair::new(pool))
        .units(WORKER_TASKS, Pace::finishing(IDLE_POLL), || {
            Batches(worker.clone())
        })
        .run()
        .await;
    Ok(())
}

/// The geocoder's unit of work: one batch of [`run_batch`]. Its faults (database trouble
/// outside a row) are logged; a batch that moved no row counts as idle, so the loop does
/// not spin.
pub struct Batches(pub Worker);

impl Unit for Batches {
    type Error = std::convert::Infallible;

    async fn run(&mut self) -> Result<Pass, Self::Error> {
        let outcomes = run_batch(&self.0, BATCH_SIZE).await;
        let mut progressed = false;
        for o in &outcomes {
            match o {
                Outcome::Fault { message } => tracing::warn!(error = %message, "geocoder fault"),
                Outcome::Idle => {}
                _ => progressed = true,
            }
        }
        Ok(if progressed { Pass::Worked } else { Pass::Idle })
    }
}

/// The self-repair sweep every [`REPAIR_EVERY`] (the first one runs at start, before
/// the loops).
struct Repair {
    pool: PgPool,
    due: bool,
}

impl Repair {
    fn new(pool: PgPool) -> Repair {
        Repair { pool, due: false }
    }
}

impl Unit for Repair {
    type Error = std::convert::Infallible;

    async fn run(&mut self) -> Result<Pass, Self::Error> {
        if self.due {
            repair(&self.pool).await;
        }
        self.due = true;
        Ok(Pass::Pause(REPAIR_EVERY))
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
