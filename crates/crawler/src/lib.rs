//! The crawler daemon: incremental crawl, enrichment, full crawl, job triggers, heartbeat.
//!
//! Entry points: [`run`] (the service loop), [`scheduler::run_once`] (one scheduler step),
//! [`job::execute`] (one job as a `crawl_run`), [`startup`] (rule-7 recovery). See
//! docs/crawler.md.

pub mod context;
pub mod enrich;
pub mod error;
pub mod full_crawl;
pub mod heartbeat;
pub mod incremental;
pub mod job;
pub mod schedule;
pub mod scheduler;
pub mod upstream_time;
mod write;

pub use context::{BatchHook, Crawler, Settings};
pub use job::{JobKind, JobOptions, RunOutcome, execute};
pub use scheduler::{ScheduleState, TickOutcome, run_once};

use bandmap_config::Config;
use bandmap_db::runs;
use futures::FutureExt;
use sqlx::PgPool;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Longest wait between two looks at `job_triggers` while idle (CONTRACT §10: ≤ 10 s).
pub const IDLE_POLL: Duration = Duration::from_secs(5);

/// Rule 7: takes this instance's lock, then closes as `interrupted` the crawler runs left
/// `running` by a dead instance (no owner, or an owner whose lock nobody holds). Runs of
/// live replicas are left alone (CONTRACT §1 allows several).
pub async fn startup(crawler: &Crawler) -> Result<u64, bandmap_db::DbError> {
    crawler.owner().await?;
    let n = runs::recover_orphaned(
        &crawler.pool,
        &JobKind::trigger_types(),
        "crawler restarted: run left running by a stopped instance",
    )
    .await?;
    if n > 0 {
        tracing::warn!(closed = n, "runs left running closed as interrupted");
    }
    Ok(n)
}

/// The crawler service: recovery, heartbeat, scheduler loop until `shutdown`; then the
/// solver session is destroyed.
pub async fn run(
    pool: PgPool,
    config: Arc<Config>,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    let crawler = Arc::new(Crawler::from_config(
        pool.clone(),
        &config,
        shutdown.clone(),
    )?);
    run_crawler(crawler, config.heartbeat_interval).await;
    Ok(())
}

/// The loop of [`run`] on a prepared crawler (tests inject a clock or a client).
pub async fn run_crawler(crawler: Arc<Crawler>, heartbeat_every: Duration) {
    if let Err(e) = startup(&crawler).await {
        tracing::error!(error = %e, "start-up recovery failed; going on");
    }
    let hb_crawler = crawler.clone();
    let heartbeat = tokio::spawn(bandmap_health::run(
        crawler.pool.clone(),
        "crawler",
        heartbeat_every,
        move || heartbeat::checks(&hb_crawler),
        crawler.shutdown.clone(),
    ));
    let mut scheduled = Scheduled {
        state: ScheduleState::new(crawler.clock.now(), crawler.settings.incremental_interval),
        crawler: &crawler,
    };
    drive(crawler.shutdown.clone(), IDLE_POLL, &mut scheduled).await;
    crawler.client.shutdown().await;
    crawler.release_instance().await;
    let _ = heartbeat.await;
    tracing::info!("crawler stopped");
}

/// One step of a service loop (the scheduler's [`run_once`]; tests substitute failing ones).
pub trait Step {
    /// Does at most one thing.
    fn step(&mut self) -> impl Future<Output = Result<TickOutcome, bandmap_db::DbError>> + Send;
}

struct Scheduled<'a> {
    crawler: &'a Crawler,
    state: ScheduleState,
}

impl Step for Scheduled<'_> {
    fn step(&mut self) -> impl Future<Output = Result<TickOutcome, bandmap_db::DbError>> + Send {
        run_once(self.crawler, &mut self.state)
    }
}

/// The loop of rule 6: runs `step` until `shutdown`; an error or a panic of a step is logged
/// and the loop goes on. After an idle, failed or panicked step it waits `idle_poll`
/// (or until shutdown) before the next one.
pub async fn drive(shutdown: CancellationToken, idle_poll: Duration, step: &mut impl Step) {
    while !shutdown.is_cancelled() {
        let outcome = AssertUnwindSafe(step.step()).catch_unwind().await;
        let idle = match outcome {
            Ok(Ok(TickOutcome::Idle)) => true,
            Ok(Ok(outcome)) => {
                tracing::debug!(?outcome, "scheduler step");
                false
            }
            Ok(Err(e)) => {
                tracing::error!(error = %e, "scheduler step failed; going on");
                true
            }
            Err(_) => {
                tracing::error!("scheduler step panicked; going on");
                true
            }
        };
        if idle {
            tokio::select! {
                () = tokio::time::sleep(idle_poll) => {}
                () = shutdown.cancelled() => {}
            }
        }
    }
}
