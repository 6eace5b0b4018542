//! The crawler service on the one service runtime: [`run`] (recovery, heartbeat, one loop
//! of scheduler steps until shutdown) and the crawler's unit of work, [`Steps`] of the
//! [`Scheduled`] scheduler.

use crate::{Crawler, IDLE_POLL, ScheduleState, TickOutcome, heartbeat, run_once, startup};
use bandmap_config::Config;
use bandmap_runtime::{Heartbeat, Pace, Pass, Runtime, Service, Unit};
use sqlx::PgPool;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

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
    run_crawler(
        crawler,
        Heartbeat::new(&config.hostname, config.heartbeat_interval),
    )
    .await;
    Ok(())
}

/// The loop of [`run`] on a prepared crawler (tests inject a clock or a client): the one
/// service runtime with the heartbeat and one loop of [`run_once`] steps.
pub async fn run_crawler(crawler: Arc<Crawler>, heartbeat: Heartbeat) {
    if let Err(e) = startup(&crawler).await {
        tracing::error!(error = %e, "start-up recovery failed; going on");
    }
    let hb_crawler = crawler.clone();
    let scheduled = Scheduled::new(crawler.clone());
    Runtime::new(Service::Crawler, crawler.shutdown.clone())
        .heartbeat(crawler.pool.clone(), heartbeat, move || {
            heartbeat::checks(&hb_crawler)
        })
        .unit(Pace::finishing(IDLE_POLL), Steps(scheduled))
        .run()
        .await;
    crawler.client.shutdown().await;
    crawler.release_instance().await;
}

/// One step of the crawler's loop (the scheduler's [`run_once`]; tests substitute failing
/// ones).
pub trait Step: Send {
    /// Does at most one thing.
    fn step(&mut self) -> impl Future<Output = Result<TickOutcome, bandmap_db::DbError>> + Send;
}

impl<S: Step> Step for &mut S {
    fn step(&mut self) -> impl Future<Output = Result<TickOutcome, bandmap_db::DbError>> + Send {
        (**self).step()
    }
}

/// The scheduler over its state: the crawler's unit of work.
pub struct Scheduled {
    crawler: Arc<Crawler>,
    state: ScheduleState,
}

impl Scheduled {
    /// The scheduler of `crawler`, in its state at start (now).
    pub fn new(crawler: Arc<Crawler>) -> Scheduled {
        let state = ScheduleState::new(crawler.clock.now(), crawler.settings.incremental_interval);
        Scheduled { crawler, state }
    }
}

impl Step for Scheduled {
    fn step(&mut self) -> impl Future<Output = Result<TickOutcome, bandmap_db::DbError>> + Send {
        run_once(&self.crawler, &mut self.state)
    }
}

/// Scheduler steps as the runtime's units: an idle step sleeps, any other is followed by
/// the next at once.
pub struct Steps<S>(pub S);

impl<S: Step> Unit for Steps<S> {
    type Error = bandmap_db::DbError;

    async fn run(&mut self) -> Result<Pass, bandmap_db::DbError> {
        match self.0.step().await? {
            TickOutcome::Idle => Ok(Pass::Idle),
            outcome => {
                tracing::debug!(?outcome, "scheduler step");
                Ok(Pass::Worked)
            }
        }
    }
}

/// The loop of rule 6 ([`bandmap_runtime::drive`]): runs `step` until `shutdown`; an error
/// or a panic of a step is logged and the loop goes on. After an idle, failed or panicked
/// step it waits `idle_poll` (or until shutdown) before the next one.
pub async fn drive(shutdown: CancellationToken, idle_poll: Duration, step: &mut impl Step) {
    let pace = Pace::finishing(idle_poll);
    bandmap_runtime::drive(Service::Crawler, pace, &shutdown, &mut Steps(step)).await;
}
