//! The scheduler: one job at a time. Each [`run_once`] does at most one thing, in this order:
//! close one trigger of an unknown type (rule 9); run one claimed trigger; the rule-1 full
//! crawl check (at start and at each 03:00 UTC tick); the automatic incremental crawl
//! (every `incremental_interval`, the first one interval after start); automatic enrichment
//! of the queue when idle. [`run`](crate::run) calls it in a loop, isolating every failure.

use crate::context::Crawler;
use crate::job::{JobKind, JobOptions, RunOutcome, execute};
use crate::schedule::{full_crawl_due, next_daily_tick, parse_checkpoint};
use bandmap_db::DbError;
use bandmap_db::bands::enrich::has_due;
use bandmap_db::checkpoints::{self, LAST_FULL_CRAWL_AT};
use bandmap_db::triggers;
use chrono::{DateTime, Duration, Utc};

/// Error text of a trigger whose type no service runs (rule 9).
pub const UNKNOWN_JOB_TYPE: &str = "unknown job_type";
/// Bands per automatic enrichment run (then the scheduler looks at triggers again).
pub const AUTO_ENRICH_BANDS: usize = 100;
/// Wait before the next automatic enrichment when a run enriched nothing (all failed).
pub const AUTO_ENRICH_BACKOFF_MIN: i64 = 15;

/// What the scheduler will do next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScheduleState {
    /// Rule-1 check pending (true at start, then at each 03:00 UTC tick).
    pub full_check_due: bool,
    /// Next 03:00 UTC tick.
    pub next_daily_tick: DateTime<Utc>,
    /// Next automatic incremental crawl.
    pub next_incremental_at: DateTime<Utc>,
    /// Earliest next automatic enrichment.
    pub next_auto_enrich_at: DateTime<Utc>,
}

impl ScheduleState {
    /// The state at start, at `now`.
    pub fn new(now: DateTime<Utc>, incremental_interval: std::time::Duration) -> Self {
        let interval = Duration::from_std(incremental_interval).unwrap_or(Duration::hours(1));
        Self {
            full_check_due: true,
            next_daily_tick: next_daily_tick(now),
            next_incremental_at: now + interval,
            next_auto_enrich_at: now,
        }
    }
}

/// What one scheduler step did.
#[derive(Debug, Clone, PartialEq)]
pub enum TickOutcome {
    /// A trigger of an unknown type was closed as `error` / `unknown job_type`.
    RejectedTrigger {
        /// Trigger id.
        id: i64,
        /// Its type.
        job_type: String,
    },
    /// A job ran.
    Ran {
        /// Which job.
        kind: JobKind,
        /// The trigger that asked for it (None: automatic).
        trigger: Option<i64>,
        /// Its run.
        run: Box<RunOutcome>,
    },
    /// Nothing to do.
    Idle,
}

/// One scheduler step (see the module header).
pub async fn run_once(
    crawler: &Crawler,
    state: &mut ScheduleState,
) -> Result<TickOutcome, DbError> {
    let pool = &crawler.pool;
    // Types of other services (`geocoder_enqueue`) are known, so never claimed here (rule 9).
    if let Some(t) = triggers::claim_unknown(pool).await? {
        triggers::fail_if_claimed(pool, t.id, UNKNOWN_JOB_TYPE).await?;
        tracing::warn!(trigger = t.id, job_type = %t.job_type, "unknown job_type closed");
        return Ok(TickOutcome::RejectedTrigger {
            id: t.id,
            job_type: t.job_type,
        });
    }
    if let Some(t) = triggers::claim(pool, &JobKind::trigger_types()).await? {
        return run_trigger(crawler, t).await;
    }
    let now = crawler.clock.now();
    if now >= state.next_daily_tick {
        state.full_check_due = true;
        state.next_daily_tick = next_daily_tick(now);
    }
    if state.full_check_due {
        let last = checkpoints::get(pool, LAST_FULL_CRAWL_AT).await?;
        let last = last.as_deref().and_then(parse_checkpoint);
        if full_crawl_due(last, now, crawler.settings.full_crawl_interval_days) {
            // Cleared only once the run happened: a failure before (database) keeps the
            // check pending for the next step instead of skipping the crawl until 03:00.
            let run = execute(crawler, JobKind::FullCrawl, None, JobOptions::default()).await?;
            state.full_check_due = false;
            return Ok(TickOutcome::Ran {
                kind: JobKind::FullCrawl,
                trigger: None,
                run: Box::new(run),
            });
        }
        state.full_check_due = false;
    }
    if now >= state.next_incremental_at {
        let interval =
            Duration::from_std(crawler.settings.incremental_interval).unwrap_or(Duration::hours(1));
        state.next_incremental_at = now + interval;
        let run = execute(crawler, JobKind::Incremental, None, JobOptions::default()).await?;
        return Ok(TickOutcome::Ran {
            kind: JobKind::Incremental,
            trigger: None,
            run: Box::new(run),
        });
    }
    if now >= state.next_auto_enrich_at && has_due(pool).await? {
        let opts = JobOptions {
            max_bands: Some(AUTO_ENRICH_BANDS),
        };
        let run = execute(crawler, JobKind::Enrich, None, opts).await?;
        if run.stats.enriched.get() == 0 {
            state.next_auto_enrich_at = now + Duration::minutes(AUTO_ENRICH_BACKOFF_MIN);
        }
        return Ok(TickOutcome::Ran {
            kind: JobKind::Enrich,
            trigger: None,
            run: Box::new(run),
        });
    }
    Ok(TickOutcome::Idle)
}

/// Runs the job of a claimed trigger. When the job cannot even run (its run cannot be
/// opened or closed), [`bandmap_runtime::triggered`] closes the trigger `error` with the
/// message rather than leaving it `claimed` for ever.
async fn run_trigger(crawler: &Crawler, t: triggers::Claimed) -> Result<TickOutcome, DbError> {
    let pool = &crawler.pool;
    let Some(kind) = JobKind::from_job_type(t.job_type) else {
        triggers::fail_if_claimed(pool, t.id, UNKNOWN_JOB_TYPE).await?;
        return Ok(TickOutcome::RejectedTrigger {
            id: t.id,
            job_type: t.job_type.to_string(),
        });
    };
    let run = bandmap_runtime::triggered(
        pool,
        &t,
        execute(crawler, kind, Some(t.id), JobOptions::default()),
    )
    .await?;
    Ok(TickOutcome::Ran {
        kind,
        trigger: Some(t.id),
        run: Box::new(run),
    })
}
