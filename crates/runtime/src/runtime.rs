//! [`Runtime`]: one background service — its heartbeat and its loops — started and
//! awaited as a whole.

use crate::drive::drive_nudging;
use crate::unit::{Pace, Unit};
use bandmap_db::Service;
use bandmap_health::{Check, Heartbeat};
use futures::future::BoxFuture;
use sqlx::PgPool;
use std::sync::Arc;
use tokio::sync::Notify;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

/// A service about to run: its name, its shutdown token, and the tasks it will start.
pub struct Runtime {
    service: Service,
    shutdown: CancellationToken,
    tasks: Vec<BoxFuture<'static, ()>>,
    /// Nudged by the loops after a unit that worked; the heartbeat then beats soon.
    worked: Arc<Notify>,
}

impl Runtime {
    /// A service with nothing to run yet.
    pub fn new(service: Service, shutdown: CancellationToken) -> Runtime {
        Runtime {
            service,
            shutdown,
            tasks: Vec::new(),
            worked: Arc::new(Notify::new()),
        }
    }

    /// Writes the service's heartbeat at start and every `heartbeat.every` until shutdown, with
    /// fresh checks from `checks` at each beat (rule 22), and again soon after the
    /// service's loops did some work (a run that ended, rows processed: issue 29), at most
    /// once per [`bandmap_health::NUDGE_MIN_GAP`].
    pub fn heartbeat(
        mut self,
        pool: PgPool,
        heartbeat: Heartbeat,
        checks: impl Fn() -> Vec<Check> + Send + Sync + 'static,
    ) -> Runtime {
        let beat = bandmap_health::run(
            pool,
            self.service,
            heartbeat,
            checks,
            self.worked.clone(),
            self.shutdown.clone(),
        );
        self.tasks.push(Box::pin(beat));
        self
    }

    /// Adds a loop driving `unit` at `pace` ([`drive`]).
    pub fn unit<U: Unit + 'static>(mut self, pace: Pace, mut unit: U) -> Runtime {
        let (service, shutdown) = (self.service, self.shutdown.clone());
        let worked = self.worked.clone();
        self.tasks.push(Box::pin(async move {
            drive_nudging(service, pace, &shutdown, &mut unit, &worked).await;
        }));
        self
    }

    /// Adds `n` loops, each driving its own unit from `make`.
    pub fn units<U: Unit + 'static>(
        mut self,
        n: usize,
        pace: Pace,
        mut make: impl FnMut() -> U,
    ) -> Runtime {
        for _ in 0..n {
            self = self.unit(pace, make());
        }
        self
    }

    /// Starts every task and returns once all have stopped (at shutdown).
    pub async fn run(self) {
        let service = self.service;
        let mut tasks = JoinSet::new();
        for task in self.tasks {
            tasks.spawn(task);
        }
        while let Some(done) = tasks.join_next().await {
            if let Err(e) = done {
                tracing::error!(%service, error = %e, "service task ended abnormally");
            }
        }
        tracing::info!(%service, "service stopped");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::unit::{Pace, Pass, Unit};
    use std::sync::Mutex;
    use std::time::Duration;

    /// Works once (a run that ends), then idles.
    struct OneRun {
        done: bool,
    }

    impl Unit for OneRun {
        type Error = String;
        async fn run(&mut self) -> Result<Pass, String> {
            if self.done {
                return Ok(Pass::Idle);
            }
            self.done = true;
            Ok(Pass::Worked)
        }
    }

    /// Issue 29: the heartbeat does not wait for its hourly period to see that a run
    /// ended — a unit that worked brings the next beat forward.
    #[tokio::test(start_paused = true)]
    async fn a_unit_that_worked_brings_the_next_beat_forward() {
        // Nowhere to write: the beat logs the failure, the checks were still built.
        let Ok(pool) = sqlx::postgres::PgPoolOptions::new()
            .acquire_timeout(Duration::from_millis(50))
            .connect_lazy("postgres://nobody@127.0.0.1:1/nothing")
        else {
            panic!("a lazy pool needs no server");
        };
        let shutdown = CancellationToken::new();
        let beats: Arc<Mutex<Vec<tokio::time::Instant>>> = Arc::default();
        let (seen, stop) = (beats.clone(), shutdown.clone());
        let hour = Duration::from_secs(3600);
        let start = tokio::time::Instant::now();
        Runtime::new(Service::Crawler, shutdown)
            .heartbeat(pool, Heartbeat::new("test", hour), move || {
                let mut seen = seen
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                seen.push(tokio::time::Instant::now());
                if seen.len() == 2 {
                    stop.cancel();
                }
                Vec::new()
            })
            .unit(
                Pace::finishing(Duration::from_secs(1)),
                OneRun { done: false },
            )
            .run()
            .await;
        let beats = beats
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        assert_eq!(beats.len(), 2, "a beat at start and one after the run");
        assert!(
            beats[1] - start < hour / 2,
            "the second beat came after the run, not after the period ({:?})",
            beats[1] - start
        );
    }
}
