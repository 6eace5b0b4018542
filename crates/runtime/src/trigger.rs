//! [`triggered`]: the job of a claimed trigger, with the one place a failed trigger is
//! closed.

use crate::panic::panic_message;
use bandmap_db::triggers::{self, Claimed};
use futures::FutureExt;
use sqlx::PgPool;
use std::fmt::Display;
use std::future::Future;
use std::panic::AssertUnwindSafe;

/// Runs `job`, the work a claimed `trigger` asked for. A job that ends normally closed
/// the trigger with its run ([`bandmap_db::runs::Run::finish`]). When it fails before or
/// after its run (the run could not be opened or closed) or panics, the trigger is closed
/// `error` here with the reason, instead of staying `claimed`; a trigger already closed
/// keeps its verdict. The error is returned; a panic goes on unwinding to the service
/// loop, which logs it.
pub async fn triggered<T, E: Display>(
    pool: &PgPool,
    trigger: &Claimed,
    job: impl Future<Output = Result<T, E>>,
) -> Result<T, E> {
    let (reason, outcome) = match AssertUnwindSafe(job).catch_unwind().await {
        Ok(Ok(done)) => return Ok(done),
        Ok(Err(e)) => (format!("{} not run: {e}", trigger.job_type), Ok(e)),
        Err(panic) => {
            let message = panic_message(panic.as_ref());
            (
                format!("{} panicked: {message}", trigger.job_type),
                Err(panic),
            )
        }
    };
    match triggers::fail_if_claimed(pool, trigger.id, &reason).await {
        Ok(true) => tracing::warn!(trigger = trigger.id, %reason, "trigger closed as error"),
        Ok(false) => {}
        Err(e) => tracing::error!(trigger = trigger.id, error = %e, "trigger left claimed"),
    }
    match outcome {
        Ok(e) => Err(e),
        Err(panic) => std::panic::resume_unwind(panic),
    }
}
