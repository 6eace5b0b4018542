//! The refresh task: listen, poll, debounce, and one round over every read model.

use super::{Change, ReadModel, Refreshed};
use bandmap_db::PgPool;
use bandmap_db::map_points::{self, PgListener};
use futures::FutureExt;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Poll interval (covers a lost LISTEN connection and changes no notification announces).
pub const POLL_INTERVAL: Duration = Duration::from_secs(5);
/// Pause after a round in which a read model failed.
pub const RETRY_DELAY: Duration = Duration::from_secs(2);
/// Notifications arriving within this window are folded into one round.
pub const DEBOUNCE: Duration = Duration::from_millis(250);

/// The task's periods ([`Timing::default`] in production; tests shorten them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timing {
    /// Time between two rounds when nothing is announced.
    pub poll: Duration,
    /// Wait after a notification before the round, folding the ones that follow.
    pub debounce: Duration,
    /// Pause after a round in which a model failed.
    pub retry: Duration,
}

impl Default for Timing {
    fn default() -> Timing {
        Timing {
            poll: POLL_INTERVAL,
            debounce: DEBOUNCE,
            retry: RETRY_DELAY,
        }
    }
}

/// Keeps every model of `models` fresh until `shutdown`, with the production periods.
pub async fn run(pool: PgPool, models: Vec<Arc<dyn ReadModel>>, shutdown: CancellationToken) {
    run_with(pool, models, Timing::default(), shutdown).await;
}

/// [`run`] with other periods. A first round runs at once; then a round follows each
/// notification (after the debounce; every model hears of it at once, before) and each
/// poll. A round refreshes the models in the order given, each isolated from the others'
/// errors and panics.
pub async fn run_with(
    pool: PgPool,
    models: Vec<Arc<dyn ReadModel>>,
    timing: Timing,
    shutdown: CancellationToken,
) {
    let mut listener: Option<PgListener> = None;
    let mut first = true;
    loop {
        if listener.is_none() {
            listener = map_points::listen(&pool).await;
        }
        let at_once = std::mem::take(&mut first) || models.iter().any(|m| m.awaits_first_load());
        let notified = {
            let wait = async {
                match listener.as_mut() {
                    Some(l) => l.recv().await.is_ok(),
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = shutdown.cancelled() => return,
                ok = wait => Some(ok),
                _ = tokio::time::sleep(timing.poll) => None,
                _ = std::future::ready(()), if at_once => None,
            }
        };
        let change = match notified {
            Some(true) => {
                tell_all(&models, None);
                tokio::time::sleep(timing.debounce).await;
                if let Some(l) = listener.as_mut() {
                    while l.next_buffered().is_some() {}
                }
                Change::Announced
            }
            Some(false) => {
                listener = None;
                Change::Polled
            }
            None => Change::Polled,
        };
        if round(&pool, &models, change).await {
            // Without a first load the loop would retry at once: back off.
            tokio::select! {
                _ = shutdown.cancelled() => return,
                _ = tokio::time::sleep(timing.retry) => {}
            }
        }
    }
}

/// Refreshes every model after `change`; returns whether one failed.
async fn round(pool: &PgPool, models: &[Arc<dyn ReadModel>], change: Change) -> bool {
    let mut failed = false;
    for (i, model) in models.iter().enumerate() {
        let refresh = AssertUnwindSafe(model.refresh(pool, change)).catch_unwind();
        match refresh.await {
            Ok(Ok(Refreshed::Current)) => {}
            Ok(Ok(Refreshed::Found)) => tell_all(models, Some(i)),
            Ok(Err(e)) => {
                tracing::warn!(
                    read_model = model.name(),
                    error = %e,
                    "read model refresh failed; it keeps its previous state until the next round"
                );
                failed = true;
            }
            Err(panic) => {
                tracing::error!(
                    read_model = model.name(),
                    panic = %panic_message(panic.as_ref()),
                    "read model refresh panicked; the others go on"
                );
                failed = true;
            }
        }
    }
    failed
}

/// Every model but `except` hears of a change.
fn tell_all(models: &[Arc<dyn ReadModel>], except: Option<usize>) {
    for (i, model) in models.iter().enumerate() {
        if Some(i) != except {
            model.heard();
        }
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".to_string())
}
