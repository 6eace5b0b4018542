//! [`Runtime`]: one background service — its heartbeat and its loops — started and
//! awaited as a whole.

use crate::drive::drive;
use crate::unit::{Pace, Unit};
use bandmap_db::Service;
use bandmap_health::{Check, Heartbeat};
use futures::future::BoxFuture;
use sqlx::PgPool;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

/// A service about to run: its name, its shutdown token, and the tasks it will start.
pub struct Runtime {
    service: Service,
    shutdown: CancellationToken,
    tasks: Vec<BoxFuture<'static, ()>>,
}

impl Runtime {
    /// A service with nothing to run yet.
    pub fn new(service: Service, shutdown: CancellationToken) -> Runtime {
        Runtime {
            service,
            shutdown,
            tasks: Vec::new(),
        }
    }

    /// Writes the service's heartbeat at start and every `heartbeat.every` until shutdown,
    /// with fresh checks from `checks` at each beat (rule 22).
    pub fn heartbeat(
        mut self,
        pool: PgPool,
        heartbeat: Heartbeat,
        checks: impl Fn() -> Vec<Check> + Send + Sync + 'static,
    ) -> Runtime {
        let beat =
            bandmap_health::run(pool, self.service, heartbeat, checks, self.shutdown.clone());
        self.tasks.push(Box::pin(beat));
        self
    }

    /// Adds a loop driving `unit` at `pace` ([`drive`]).
    pub fn unit<U: Unit + 'static>(mut self, pace: Pace, mut unit: U) -> Runtime {
        let (service, shutdown) = (self.service, self.shutdown.clone());
        self.tasks.push(Box::pin(async move {
            drive(service, pace, &shutdown, &mut unit).await;
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
