//! The restart policy of a whole service (`bandmap all` runs several in one process, each
//! in its own task): a service that returns, fails or panics is logged and restarted with
//! backoff while the others keep running.

use bandmap_time::Backoff;
use futures::FutureExt;
use futures::future::BoxFuture;
use std::panic::AssertUnwindSafe;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Builds one run of a service; called again for each restart.
pub type ServiceFactory = Box<dyn Fn() -> BoxFuture<'static, anyhow::Result<()>> + Send + Sync>;

const FIRST_BACKOFF: Duration = Duration::from_secs(1);
const MAX_BACKOFF: Duration = Duration::from_secs(60);
/// A run that lasted this long was healthy: its failure starts the backoff afresh, so one
/// crash after days of service does not wait as long as the tenth crash in a row.
const HEALTHY_RUN: Duration = Duration::from_secs(5 * 60);

/// Delay before the next restart: doubling while runs keep failing fast, reset after a
/// healthy run.
fn next_backoff(previous: Duration, ran_for: Duration) -> Duration {
    if ran_for >= HEALTHY_RUN {
        FIRST_BACKOFF
    } else {
        Backoff::doubling(FIRST_BACKOFF, MAX_BACKOFF).after(previous)
    }
}

/// Runs one service until shutdown, restarting it after failures.
pub async fn supervise(name: &'static str, factory: ServiceFactory, shutdown: CancellationToken) {
    let mut backoff = Duration::ZERO;
    loop {
        let started = tokio::time::Instant::now();
        let outcome = AssertUnwindSafe(factory()).catch_unwind().await;
        backoff = next_backoff(backoff, started.elapsed()).max(FIRST_BACKOFF);
        if shutdown.is_cancelled() {
            return;
        }
        match outcome {
            Ok(Ok(())) => {
                tracing::warn!(service = name, "service returned; restarting");
            }
            Ok(Err(e)) => {
                tracing::error!(service = name, error = %format!("{e:#}"), "service failed; restarting")
            }
            Err(_) => tracing::error!(service = name, "service panicked; restarting"),
        }
        tokio::select! {
            _ = tokio::time::sleep(backoff) => {}
            _ = shutdown.cancelled() => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, Ordering};

    #[test]
    fn backoff_doubles_on_fast_failures_caps_and_resets_after_a_healthy_run() {
        let fast = Duration::from_secs(1);
        let mut b = FIRST_BACKOFF;
        let mut seen = vec![b];
        for _ in 0..8 {
            b = next_backoff(b, fast);
            seen.push(b);
        }
        assert_eq!(seen[..4], [1, 2, 4, 8].map(Duration::from_secs));
        assert_eq!(*seen.last().unwrap(), MAX_BACKOFF, "capped");
        assert_eq!(next_backoff(MAX_BACKOFF, HEALTHY_RUN), FIRST_BACKOFF);
        assert_eq!(
            next_backoff(MAX_BACKOFF, HEALTHY_RUN - Duration::from_secs(1)),
            MAX_BACKOFF
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_failing_service_is_restarted_and_others_keep_running() {
        let shutdown = CancellationToken::new();
        let trigger = shutdown.clone();
        let failing_runs = Arc::new(AtomicU32::new(0));
        let steady_runs = Arc::new(AtomicU32::new(0));
        let f = failing_runs.clone();
        let failing: ServiceFactory = Box::new(move || {
            let f = f.clone();
            async move {
                let n = f.fetch_add(1, Ordering::SeqCst);
                if n == 0 {
                    panic!("first run panics");
                }
                anyhow::bail!("run {n} fails")
            }
            .boxed()
        });
        let s = steady_runs.clone();
        let steady_shutdown = shutdown.clone();
        let steady: ServiceFactory = Box::new(move || {
            let s = s.clone();
            let sd = steady_shutdown.clone();
            async move {
                s.fetch_add(1, Ordering::SeqCst);
                sd.cancelled().await;
                Ok(())
            }
            .boxed()
        });
        let a = tokio::spawn(supervise("failing", failing, shutdown.clone()));
        let b = tokio::spawn(supervise("steady", steady, shutdown.clone()));
        tokio::time::sleep(Duration::from_secs(10)).await;
        assert!(
            failing_runs.load(Ordering::SeqCst) >= 3,
            "restarted with backoff"
        );
        assert_eq!(
            steady_runs.load(Ordering::SeqCst),
            1,
            "the other service was not disturbed"
        );
        trigger.cancel();
        a.await.unwrap();
        b.await.unwrap();
    }
}
