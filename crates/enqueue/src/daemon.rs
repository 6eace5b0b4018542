//! The daemon loop (rule 11): recover runs left `running`, start the heartbeat, then scan
//! at start and every `ENQUEUE_AUTO_INTERVAL_MIN`, and claim `geocoder_enqueue` triggers
//! every 15 s — one [`Poll`] per unit of work of the service runtime. A scan that fails or
//! panics is logged (a triggered one closes its trigger `error`) and the loop goes on;
//! shutdown stops it between batches.

use crate::error::EnqueueError;
use crate::health;
use crate::names::SharedNames;
use crate::report::ScanReport;
use crate::scan::run_scan;
use bandmap_config::Config;
use bandmap_db::run_owner::Instance;
use bandmap_db::runs::{self, JobType};
use bandmap_db::triggers;
use bandmap_runtime::{Heartbeat, Pace, Pass, Runtime, Service, Unit, triggered};
use sqlx::PgPool;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// Service name of the heartbeat row.
pub const SERVICE: Service = Service::Enqueue;

/// Trigger poll period (rule 11).
pub const POLL_INTERVAL: Duration = Duration::from_secs(15);

/// The job type this daemon claims.
pub const JOB_TYPE: JobType = JobType::GeocoderEnqueue;

/// How often the loop polls for triggers and scans on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Periods {
    /// Trigger poll period ([`POLL_INTERVAL`] in production).
    pub poll: Duration,
    /// Automatic scan period (`ENQUEUE_AUTO_INTERVAL_MIN` in production).
    pub auto: Duration,
}

impl Periods {
    /// The production periods (rule 11).
    pub fn from_config(config: &Config) -> Self {
        Periods {
            poll: POLL_INTERVAL,
            auto: config.enqueue.auto_interval,
        }
    }
}

/// Runs the daemon until `shutdown` fires.
pub async fn run(
    pool: PgPool,
    config: Arc<Config>,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    let periods = Periods::from_config(&config);
    run_with(pool, config, shutdown, periods).await
}

/// [`run`] with explicit periods. Tests use it to watch the real loop poll and rescan in
/// milliseconds: the configuration counts in whole minutes, and a paused tokio clock
/// would also fire sqlx's pool timeouts while a query waits on the socket.
pub async fn run_with(
    pool: PgPool,
    config: Arc<Config>,
    shutdown: CancellationToken,
    periods: Periods,
) -> anyhow::Result<()> {
    let instance = Arc::new(Instance::new(SERVICE));
    let names = crate::names::load(&config).await;
    recover(&pool, &instance).await;
    let started = Instant::now();
    let max_age = health::max_scan_age(config.enqueue.auto_interval);
    let hb_pool = pool.clone();
    tracing::info!(
        auto_interval_s = periods.auto.as_secs(),
        poll_interval_s = periods.poll.as_secs(),
        "enqueue daemon started"
    );
    let poll =
        Poll::new(pool.clone(), instance.clone(), periods, shutdown.clone()).with_names(names);
    Runtime::new(SERVICE, shutdown)
        .heartbeat(
            pool,
            Heartbeat::new(&config.hostname, config.heartbeat_interval),
            move || health::checks(&hb_pool, max_age, started),
        )
        .unit(Pace::finishing(periods.poll), poll)
        .run()
        .await;
    instance.release().await;
    Ok(())
}

/// Takes this instance's lock, then closes the enqueue runs a dead instance left `running`
/// (rule 7): ownerless runs and runs whose owner's lock nobody holds. A live replica's
/// scan is left alone.
async fn recover(pool: &PgPool, instance: &Instance) {
    let _ = owner(pool, instance).await;
    let reason = "enqueue daemon restarted; run left running by a stopped instance";
    match runs::recover_orphaned(pool, &[JOB_TYPE], reason).await {
        Ok(0) => {}
        Ok(n) => tracing::warn!(closed = n, "closed interrupted enqueue runs"),
        Err(e) => tracing::warn!(error = %e, "could not recover interrupted runs"),
    }
}

/// The owner to record on this instance's runs; without one (the lock could not be
/// taken) a run is ownerless, which only makes it recoverable by other replicas.
async fn owner(pool: &PgPool, instance: &Instance) -> Option<runs::Owner> {
    instance.owner(pool).await.unwrap_or_else(|e| {
        tracing::warn!(error = %e, "instance lock unavailable; this run has no owner");
        None
    })
}

/// The daemon's unit of work: run the scans of every pending trigger, then the automatic
/// scan when it is due; then sleep until the next poll or the next automatic scan.
pub struct Poll {
    pool: PgPool,
    instance: Arc<Instance>,
    periods: Periods,
    next_auto: Instant,
    shutdown: CancellationToken,
    names: Option<SharedNames>,
}

impl Poll {
    /// The first poll scans at once.
    pub fn new(
        pool: PgPool,
        instance: Arc<Instance>,
        periods: Periods,
        shutdown: CancellationToken,
    ) -> Poll {
        Poll {
            pool,
            instance,
            periods,
            next_auto: Instant::now(),
            shutdown,
            names: None,
        }
    }

    /// Scans plan with the gazetteer's place `names` (loaded by [`run_with`]).
    #[must_use]
    pub fn with_names(mut self, names: Option<SharedNames>) -> Poll {
        self.names = names;
        self
    }

    /// Claims and runs pending triggers until none is left (or shutdown).
    async fn drain_triggers(&self) {
        while !self.shutdown.is_cancelled() {
            match triggers::claim(&self.pool, &[JOB_TYPE]).await {
                Ok(Some(t)) => {
                    let scan = self.scan(Some(t.id));
                    let _ = triggered(&self.pool, &t, scan).await;
                }
                Ok(None) => return,
                Err(e) => {
                    tracing::warn!(error = %e, "trigger poll failed; retrying at the next poll");
                    return;
                }
            }
        }
    }

    /// One scan as this instance; a failed scan is logged (its run is closed `error`).
    async fn scan(&self, trigger: Option<i64>) -> Result<ScanReport, EnqueueError> {
        let owner = owner(&self.pool, &self.instance).await;
        let scan = run_scan(
            &self.pool,
            trigger,
            owner.as_ref(),
            Some(&self.shutdown),
            self.names.as_ref(),
        )
        .await;
        if let Err(e) = &scan {
            tracing::warn!(error = %e, "enqueue scan ended in error; the loop goes on");
        }
        scan
    }
}

impl Unit for Poll {
    type Error = std::convert::Infallible;

    async fn run(&mut self) -> Result<Pass, Self::Error> {
        self.drain_triggers().await;
        if self.shutdown.is_cancelled() {
            return Ok(Pass::Idle);
        }
        if Instant::now() >= self.next_auto {
            self.next_auto = Instant::now() + self.periods.auto;
            let _ = self.scan(None).await;
        }
        let wait = self
            .periods
            .poll
            .min(self.next_auto.saturating_duration_since(Instant::now()));
        Ok(Pass::Pause(wait))
    }
}

/// Claims one pending `geocoder_enqueue` trigger and runs its scan: what one poll does.
/// `Ok(None)` when no trigger is pending. Lets tests drive polling without sleeping.
pub async fn poll_once(pool: &PgPool) -> Result<Option<ScanReport>, EnqueueError> {
    let Some(t) = triggers::claim(pool, &[JOB_TYPE]).await? else {
        return Ok(None);
    };
    triggered(pool, &t, run_scan(pool, Some(t.id), None, None, None))
        .await
        .map(Some)
}
