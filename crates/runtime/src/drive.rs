//! [`drive`]: the one service loop.

use crate::panic::panic_message;
use crate::unit::{OnShutdown, Pace, Pass, Unit};
use bandmap_db::Service;
use futures::FutureExt;
use std::panic::AssertUnwindSafe;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

/// Runs `unit` again and again until `shutdown`. A unit that panics is caught and logged,
/// one that fails is logged, and the next unit runs after [`Pace::idle_poll`]; a unit that
/// worked is followed at once by the next, an idle one after `idle_poll`, a paused one
/// after its pause. Shutdown ends every sleep at once.
pub async fn drive<U: Unit>(
    service: Service,
    pace: Pace,
    shutdown: &CancellationToken,
    unit: &mut U,
) {
    drive_nudging(service, pace, shutdown, unit, &Notify::new()).await;
}

/// [`drive`], nudging `worked` after every unit that did some work (the service's
/// heartbeat listens: a run that just ended is seen at once, issue 29).
pub async fn drive_nudging<U: Unit>(
    service: Service,
    pace: Pace,
    shutdown: &CancellationToken,
    unit: &mut U,
    worked: &Notify,
) {
    while !shutdown.is_cancelled() {
        let work = AssertUnwindSafe(unit.run()).catch_unwind();
        let outcome = match pace.on_shutdown {
            OnShutdown::Finish => work.await,
            OnShutdown::Abandon => tokio::select! {
                outcome = work => outcome,
                () = shutdown.cancelled() => return,
            },
        };
        let pause = match outcome {
            Ok(Ok(Pass::Worked)) => {
                worked.notify_one();
                continue;
            }
            Ok(Ok(Pass::Idle)) => pace.idle_poll,
            Ok(Ok(Pass::Pause(pause))) => pause,
            Ok(Err(e)) => {
                tracing::error!(%service, error = %e, "unit of work failed; going on");
                pace.idle_poll
            }
            Err(panic) => {
                let panic = panic_message(panic.as_ref());
                tracing::error!(%service, %panic, "unit of work panicked; going on");
                pace.idle_poll
            }
        };
        tokio::select! {
            () = tokio::time::sleep(pause) => {}
            () = shutdown.cancelled() => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Panics, fails, idles, works, then pauses and stops the loop.
    struct Script {
        calls: u32,
        stop: CancellationToken,
    }

    impl Unit for Script {
        type Error = String;

        async fn run(&mut self) -> Result<Pass, String> {
            self.calls += 1;
            match self.calls {
                1 => panic!("first unit panics"),
                2 => Err("second unit fails".to_string()),
                3 => Ok(Pass::Idle),
                4 => Ok(Pass::Worked),
                _ => {
                    self.stop.cancel();
                    Ok(Pass::Pause(Duration::from_secs(3600)))
                }
            }
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_panicking_or_failing_unit_is_followed_by_the_next() {
        let shutdown = CancellationToken::new();
        let mut unit = Script {
            calls: 0,
            stop: shutdown.clone(),
        };
        let pace = Pace::finishing(Duration::from_secs(1));
        drive(Service::Llm, pace, &shutdown, &mut unit).await;
        assert_eq!(
            unit.calls, 5,
            "the loop went on after the panic and the error"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn shutdown_abandons_a_unit_in_flight_when_asked() {
        struct Hangs;
        impl Unit for Hangs {
            type Error = String;
            async fn run(&mut self) -> Result<Pass, String> {
                std::future::pending().await
            }
        }
        let shutdown = CancellationToken::new();
        shutdown.cancel();
        let pace = Pace::abandoning(Duration::from_secs(1));
        // Cancelled before the first unit: the loop does not start one.
        drive(Service::Llm, pace, &shutdown, &mut Hangs).await;
        let live = CancellationToken::new();
        let stop = live.clone();
        let task = tokio::spawn(async move {
            drive(Service::Llm, pace, &live, &mut Hangs).await;
        });
        tokio::task::yield_now().await;
        stop.cancel();
        assert!(task.await.is_ok(), "the hanging unit was abandoned");
    }
}
