//! The crawler daemon: incremental crawl, enrichment, full crawl, job triggers, heartbeat.
//!
//! Entry points: [`run`] (the service loop), [`scheduler::run_once`] (one scheduler step),
//! [`job::execute`] (one job as a `crawl_run`), [`startup`] (rule-7 recovery). See
//! docs/crawler.md.

pub mod context;
pub mod enrich;
pub mod error;
pub mod full_crawl;
pub mod heartbeat;
pub mod incremental;
pub mod job;
pub mod schedule;
pub mod scheduler;
mod service;
pub mod upstream_time;
mod write;

pub use context::{BatchHook, Crawler, Settings};
pub use job::{JobKind, JobOptions, RunOutcome, execute};
pub use scheduler::{ScheduleState, TickOutcome, run_once};
pub use service::{Scheduled, Step, Steps, drive, run, run_crawler};

use bandmap_db::runs;
use std::time::Duration;

/// Longest wait between two looks at `job_triggers` while idle (CONTRACT §10: ≤ 10 s).
pub const IDLE_POLL: Duration = Duration::from_secs(5);

/// Rule 7: takes this instance's lock, then closes as `interrupted` the crawler runs left
/// `running` by a dead instance (no owner, or an owner whose lock nobody holds). Runs of
/// live replicas are left alone (CONTRACT §1 allows several).
pub async fn startup(crawler: &Crawler) -> Result<u64, bandmap_db::DbError> {
    crawler.owner().await?;
    let n = runs::recover_orphaned(
        &crawler.pool,
        &JobKind::trigger_types(),
        "crawler restarted: run left running by a stopped instance",
    )
    .await?;
    if n > 0 {
        tracing::warn!(closed = n, "runs left running closed as interrupted");
    }
    Ok(n)
}
