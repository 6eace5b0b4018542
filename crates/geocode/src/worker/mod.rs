//! The geocoding worker: [`run_once`] claims one due `pending` row and takes it to its next
//! state (the pipeline of docs/geocoding.md); [`run_batch`] does the same for many rows with
//! one claim and one `done` transaction; [`run`] loops batches on a few tasks, repairs stuck
//! rows and writes the heartbeat. A row whose processing raises or panics ends `error`
//! with the message; the worker itself survives every per-row failure.

mod batch;
mod health;
mod run;

pub use batch::run_batch;
pub use run::{Batches, run, run_with_geocoder};

use crate::done::{finish_fields, finish_many};
use crate::place::{CENTROID_CONFIDENCE, CENTROID_PROVIDER};
use crate::{GeocodeError, Geocoder, PlaceQuery, Resolution};
use bandmap_config::GeocoderConfig;
use bandmap_db::band_locations::claim::{self, Claimed};
use bandmap_db::band_locations::done::{DoneFields, Finish, Finished};
use bandmap_db::band_locations::exits;
use bandmap_db::band_locations::{GeocodeStatus, LocationKind};
use bandmap_runtime::panic_message;
use futures::FutureExt;
use sqlx::PgPool;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::time::Duration;

/// Concurrent claim loops of one `bandmap geocoder` process (they share one limiter).
pub const WORKER_TASKS: usize = 4;
/// Sleep of an idle loop before it looks for work again (CONTRACT §10: at most 5 s).
pub const IDLE_POLL: Duration = Duration::from_secs(2);
/// A row `processing` for longer than this is considered abandoned (self-repair).
pub const STUCK_AFTER: Duration = Duration::from_secs(10 * 60);
/// How long a row waits the first time nothing can decide it (no provider), attempts
/// unchanged; each further consecutive wait doubles it, up to [`MAX_WAIT_DELAY`].
pub const WAIT_DELAY: Duration = Duration::from_secs(10 * 60);
/// Longest wait of an undecidable row: 10 min doubling reaches it after 6 waits (≈ 10.5 h
/// in all), then such a row costs 4 claims a day instead of 144.
pub const MAX_WAIT_DELAY: Duration = Duration::from_secs(6 * 60 * 60);
/// Rows claimed at once by the run loop ([`run_batch`]).
pub const BATCH_SIZE: usize = 64;
/// After this long in one batch, its rows not yet started go back to `pending` (a batch of
/// rows that all need a slow provider must not hold the rest for long).
pub const BATCH_BUDGET: Duration = Duration::from_secs(60);
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
    /// A row naming only its country got the country centroid again (`country_only`).
    CountryOnly {
        /// Row id.
        id: i64,
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
    /// Time a batch may spend on provider calls ([`BATCH_BUDGET`]).
    batch_budget: Duration,
    /// An LLM worker is configured (`LLM_API_KEY` set, or `LLM_MODE=recorded`): a row nothing here can decide goes
    /// to it (`llm_needed`) instead of waiting for a provider (issue 19 point 7).
    llm_configured: bool,
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
            batch_budget: BATCH_BUDGET,
            llm_configured: false,
        }
    }

    /// The same worker, told whether an LLM worker is configured ([`Worker::llm_configured`]).
    pub fn with_llm(mut self, configured: bool) -> Worker {
        self.llm_configured = configured;
        self
    }

    /// Whether a row no resolver here can decide is handed to the LLM worker.
    pub fn llm_configured(&self) -> bool {
        self.llm_configured
    }

    /// The same worker with another batch budget (tests: a budget already spent).
    pub fn with_batch_budget(mut self, budget: Duration) -> Worker {
        self.batch_budget = budget;
        self
    }
}

/// Claims one due row and processes it. Never panics.
#[tracing::instrument(skip_all)]
pub async fn run_once(ctx: &Worker) -> Outcome {
    let row = match claim::claim(&ctx.pool).await {
        Ok(Some(row)) => row,
        Ok(None) => return Outcome::Idle,
        Err(e) => {
            return Outcome::Fault {
                message: format!("claim failed: {e}"),
            };
        }
    };
    guarded(ctx, &row, process(ctx, &row)).await
}

/// Runs one row's processing; if it raises or panics the row ends `error` with the message,
/// unless the database itself was unavailable ([`give_back`]).
async fn guarded(
    ctx: &Worker,
    row: &Claimed,
    work: impl Future<Output = Result<Outcome, GeocodeError>>,
) -> Outcome {
    let failure = match AssertUnwindSafe(work).catch_unwind().await {
        Ok(Ok(outcome)) => return outcome,
        Ok(Err(e)) if e.is_database_unavailable() => return give_back(ctx, row, &e).await,
        Ok(Err(e)) => format!("processing failed: {e}"),
        Err(panic) => format!("processing panicked: {}", panic_message(panic.as_ref())),
    };
    record_error(ctx, row, failure).await
}

/// The database failed under a row, not the row: it goes back to `pending`, due now, its
/// attempts and error unchanged, for the next loop once the database answers again. When
/// even that cannot be written, the row stays `processing` for the self-repair.
async fn give_back(ctx: &Worker, row: &Claimed, e: &GeocodeError) -> Outcome {
    tracing::warn!(row.id = row.id, error = %e, "database unavailable; row given back");
    let kept = match exits::release(&ctx.pool, &[row.claim()]).await {
        Ok(_) => "given back",
        Err(_) => "left for the self-repair",
    };
    Outcome::Fault {
        message: format!("database unavailable under row {}: {e}; {kept}", row.id),
    }
}

async fn record_error(ctx: &Worker, row: &Claimed, failure: String) -> Outcome {
    tracing::warn!(row.id = row.id, error = %failure, "geocoding row failed");
    match exits::mark_error(&ctx.pool, &row.claim(), &failure).await {
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
    match plan(ctx, row) {
        Plan::Finish(f, outcome) => Ok(if finish_one(&ctx.pool, f).await? {
            outcome
        } else {
            not_ours(row.id)
        }),
        Plan::Online(place, notes) => {
            let resolution = ctx.geocoder.online(&place, notes).await;
            exit(ctx, row, resolution).await
        }
    }
}

/// What a claimed row needs: an immediate result (no I/O was needed to decide it), or
/// the online tiers (cache, provider) with the gazetteer's notes.
enum Plan {
    Finish(Finished, Outcome),
    Online(PlaceQuery, Vec<String>),
}

/// Decides a row without I/O where possible, in this order: a row naming only its
/// country gets the country centroid again (it was requeued; it has no place to look
/// up), a done twin is copied (rule 17), the offline gazetteer.
fn plan(ctx: &Worker, row: &Claimed) -> Plan {
    let id = row.id;
    let finished = |status, fields| Finished {
        claim: row.claim(),
        status,
        fields,
    };
    if let LocationKind::CountryOnly(c) = row.kind() {
        let fields = DoneFields {
            lat: c.lat,
            lon: c.lon,
            provider: CENTROID_PROVIDER.to_string(),
            confidence: Some(CENTROID_CONFIDENCE),
            granularity: Some("country".to_string()),
            query: None,
        };
        return Plan::Finish(
            finished(Finish::CountryOnly, fields),
            Outcome::CountryOnly { id },
        );
    }
    if let Some(twin) = row.twin() {
        let provider = twin.provider.clone();
        return Plan::Finish(
            finished(Finish::Done, twin),
            Outcome::Done {
                id,
                provider,
                dedup: true,
            },
        );
    }
    let place = PlaceQuery::from_row(
        &row.location_raw,
        row.city.as_deref(),
        &row.regions,
        row.country_code.as_deref(),
        row.country.as_deref(),
    );
    match ctx.geocoder.offline(&place) {
        Ok(r) => {
            let provider = r.provider.clone();
            Plan::Finish(
                finished(Finish::Done, r.into()),
                Outcome::Done {
                    id,
                    provider,
                    dedup: false,
                },
            )
        }
        Err(notes) => Plan::Online(place, notes),
    }
}

/// Takes a row to the state its resolution calls for.
async fn exit(
    ctx: &Worker,
    row: &Claimed,
    resolution: Resolution,
) -> Result<Outcome, GeocodeError> {
    let pool = &ctx.pool;
    let (id, claim) = (row.id, row.claim());
    Ok(match resolution {
        Resolution::Accepted(r) => {
            let provider = r.provider.clone();
            if finish_fields(pool, &claim, &r.into()).await? {
                Outcome::Done {
                    id,
                    provider,
                    dedup: false,
                }
            } else {
                not_ours(id)
            }
        }
        Resolution::Rejected { error, .. } => failed(pool, row, &error, true).await?,
        Resolution::Transient { error } => failed(pool, row, &error, false).await?,
        Resolution::Fatal { error } => {
            exits::mark_error(pool, &claim, &error).await?;
            Outcome::Error { id, message: error }
        }
        // No provider and the gazetteer could not decide: the LLM reads the row when one
        // is configured; otherwise the row waits, its reason shown.
        Resolution::Unavailable { reason } if ctx.llm_configured => {
            failed(pool, row, &reason, true).await?
        }
        Resolution::Unavailable { reason } => {
            let text = format!("{WAIT_PREFIX}{reason}");
            exits::wait(pool, &claim, &text, WAIT_DELAY, MAX_WAIT_DELAY).await?;
            Outcome::Waiting { id }
        }
    })
}

/// One row alone: `done` through the single-row statements (measured cheaper for one row
/// than the batch's `UNNEST` statements: 0.84–0.92 × the bare loop against 0.70 ×), the
/// rare `country_only` through the batch statement.
async fn finish_one(pool: &PgPool, f: Finished) -> Result<bool, GeocodeError> {
    match f.status {
        Finish::Done => finish_fields(pool, &f.claim, &f.fields).await,
        Finish::CountryOnly => Ok(!finish_many(pool, &[f]).await?.is_empty()),
    }
}

fn not_ours(id: i64) -> Outcome {
    // Re-claimed or reset meanwhile: someone else owns it now.
    Outcome::Fault {
        message: format!("row {id} was no longer ours"),
    }
}

async fn failed(
    pool: &PgPool,
    row: &Claimed,
    error: &str,
    every_fallback_failed: bool,
) -> Result<Outcome, GeocodeError> {
    let to = exits::record_failure(pool, &row.claim(), error, every_fallback_failed).await?;
    Ok(match to {
        Some(t) if t.geocode_status == GeocodeStatus::LlmNeeded => {
            Outcome::LlmNeeded { id: row.id }
        }
        Some(t) => Outcome::Failed {
            id: row.id,
            attempts: t.attempts,
        },
        None => not_ours(row.id),
    })
}
