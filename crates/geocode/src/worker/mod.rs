//! The geocoding worker: [`run_once`] claims one due `pending` row and takes it to its next
//! state (the pipeline of docs/geocoding.md); [`run`] loops it on a few tasks, repairs stuck
//! rows and writes the heartbeat. A row whose processing raises or panics ends `error`
//! with the message; the worker itself survives every per-row failure.

mod health;
mod run;

pub use run::run;

use crate::done::{finish_done, finish_fields};
use crate::{GeocodeError, Geocoder, PlaceQuery, Resolution};
use bandmap_config::GeocoderConfig;
use bandmap_db::band_locations::geocoding::{self, Claimed};
use futures::FutureExt;
use sqlx::PgPool;
use std::panic::AssertUnwindSafe;
use std::time::Duration;

/// Concurrent claim loops of one `bandmap geocoder` process (they share one limiter).
pub const WORKER_TASKS: usize = 4;
/// Sleep of an idle loop before it looks for work again (CONTRACT §10: at most 5 s).
pub const IDLE_POLL: Duration = Duration::from_secs(2);
/// A row `processing` for longer than this is considered abandoned (self-repair).
pub const STUCK_AFTER: Duration = Duration::from_secs(10 * 60);
/// How long a row waits when nothing can decide it (no provider), attempts unchanged.
pub const WAIT_DELAY: Duration = Duration::from_secs(10 * 60);
/// Prefix of the `error` text of a waiting row.
pub const WAIT_PREFIX: &str = "waiting: ";

/// What one [`run_once`] did.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Nothing due.
    Idle,
    /// Row `done` (`dedup`: copied from a done twin, no resolution).
    Done {
        /// Row id.
        id: i64,
        /// Provider stored.
        provider: String,
        /// Copied by the dedup fast path.
        dedup: bool,
    },
    /// Failed attempt: back to `pending` with backoff.
    Failed {
        /// Row id.
        id: i64,
        /// Attempts so far.
        attempts: i32,
    },
    /// Handed to the LLM worker (rule 18).
    LlmNeeded {
        /// Row id.
        id: i64,
    },
    /// Row `error` (fatal provider refusal, or processing raised).
    Error {
        /// Row id.
        id: i64,
        /// Stored message.
        message: String,
    },
    /// No provider could decide: back to `pending` later, attempts unchanged.
    Waiting {
        /// Row id.
        id: i64,
    },
    /// The database failed outside a row (claim) or the row could not be finished; a
    /// claimed row is left `processing` for the self-repair.
    Fault {
        /// What failed.
        message: String,
    },
}

/// What the worker loops share.
#[derive(Clone)]
pub struct Worker {
    /// Database.
    pub pool: PgPool,
    /// The resolver (gazetteer, cache, provider, limiter).
    pub geocoder: Geocoder,
    /// When this worker was built (the heartbeat's progress check allows a fresh start).
    started: std::time::Instant,
}

impl Worker {
    /// Builds the worker and its geocoder from the configuration.
    pub async fn new(pool: PgPool, cfg: &GeocoderConfig) -> Result<Worker, GeocodeError> {
        let geocoder = Geocoder::new(pool.clone(), cfg).await?;
        Ok(Self::with_geocoder(pool, geocoder))
    }

    /// A worker around an existing geocoder (tests, benchmarks).
    pub fn with_geocoder(pool: PgPool, geocoder: Geocoder) -> Worker {
        Worker {
            pool,
            geocoder,
            started: std::time::Instant::now(),
        }
    }
}

/// Claims one due row and processes it. Never panics.
#[tracing::instrument(skip_all)]
pub async fn run_once(ctx: &Worker) -> Outcome {
    let row = match geocoding::claim(&ctx.pool).await {
        Ok(Some(row)) => row,
        Ok(None) => return Outcome::Idle,
        Err(e) => {
            return Outcome::Fault {
                message: format!("claim failed: {e}"),
            };
        }
    };
    let failure = match AssertUnwindSafe(process(ctx, &row)).catch_unwind().await {
        Ok(Ok(outcome)) => return outcome,
        Ok(Err(e)) => format!("processing failed: {e}"),
        Err(panic) => format!("processing panicked: {}", panic_text(panic.as_ref())),
    };
    tracing::warn!(row.id = row.id, error = %failure, "geocoding row failed");
    match geocoding::mark_error(&ctx.pool, row.id, row.claimed_at, &failure).await {
        Ok(_) => Outcome::Error {
            id: row.id,
            message: failure,
        },
        Err(e) => Outcome::Fault {
            message: format!("{failure}; could not record it: {e}"),
        },
    }
}

#[tracing::instrument(skip_all, fields(row.id = row.id, band.ma_id = row.ma_id))]
async fn process(ctx: &Worker, row: &Claimed) -> Result<Outcome, GeocodeError> {
    if let Some(twin) = row.twin() {
        let provider = twin.provider.clone();
        finish_fields(&ctx.pool, row.id, Some(row.claimed_at), &twin).await?;
        return Ok(Outcome::Done {
            id: row.id,
            provider,
            dedup: true,
        });
    }
    let place = PlaceQuery::from_row(
        &row.location_raw,
        row.city.as_deref(),
        &row.regions,
        row.country_code.as_deref(),
        row.country.as_deref(),
    );
    let pool = &ctx.pool;
    let (id, claim) = (row.id, row.claimed_at);
    Ok(match ctx.geocoder.resolve(&place).await {
        Resolution::Accepted(r) => {
            finish_done(pool, id, Some(claim), &r).await?;
            Outcome::Done {
                id,
                provider: r.provider,
                dedup: false,
            }
        }
        Resolution::Rejected { error, .. } => failed(pool, row, &error, true).await?,
        Resolution::Transient { error } => failed(pool, row, &error, false).await?,
        Resolution::Fatal { error } => {
            geocoding::mark_error(pool, id, claim, &error).await?;
            Outcome::Error { id, message: error }
        }
        Resolution::Unavailable { reason } => {
            let text = format!("{WAIT_PREFIX}{reason}");
            geocoding::wait(pool, id, claim, &text, WAIT_DELAY).await?;
            Outcome::Waiting { id }
        }
    })
}

async fn failed(
    pool: &PgPool,
    row: &Claimed,
    error: &str,
    every_fallback_failed: bool,
) -> Result<Outcome, GeocodeError> {
    let to = geocoding::record_failure(pool, row.id, row.claimed_at, error, every_fallback_failed)
        .await?;
    Ok(match to {
        Some(t) if t.geocode_status == "llm_needed" => Outcome::LlmNeeded { id: row.id },
        Some(t) => Outcome::Failed {
            id: row.id,
            attempts: t.attempts,
        },
        // Re-claimed or reset meanwhile: someone else owns it now.
        None => Outcome::Fault {
            message: format!("row {} was no longer ours", row.id),
        },
    })
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string())
}
