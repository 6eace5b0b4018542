//! One job = one `crawl_run`: opened with its trigger and this instance as owner, fed with
//! `crawl_log` lines and progress statistics, checked for cancellation at each batch
//! (rule 10), and closed by the job itself: `success`, `cancelled` (admin cancel only),
//! `interrupted` when the service shuts down under it (CONTRACT §3), or `error` with the
//! message. A panic inside a job is caught here and closes the run as `error`; it never
//! reaches the scheduler loop.

use crate::context::Crawler;
use crate::error::JobError;
use bandmap_db::DbError;
use bandmap_db::runs::stats::CrawlStats;
use bandmap_db::runs::{End, JobType, Level, Run, RunStatus};
use bandmap_db::triggers;
use bandmap_runtime::{Service, panic_message};
use futures::FutureExt;
use std::panic::AssertUnwindSafe;

/// The crawler's job kinds: the [`JobType`]s run by [`Service::Crawler`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobKind {
    /// Recently added/modified lists since the checkpoint.
    Incremental,
    /// Band pages of the enrichment queue.
    Enrich,
    /// Every European country's list.
    FullCrawl,
}

impl JobKind {
    /// The job type (`crawl_run.type`, `job_triggers.job_type`).
    pub fn job_type(self) -> JobType {
        match self {
            Self::Incremental => JobType::Incremental,
            Self::Enrich => JobType::Enrich,
            Self::FullCrawl => JobType::FullCrawl,
        }
    }

    /// The crawler's kind of a job type; None for a job another service runs.
    pub fn from_job_type(job_type: JobType) -> Option<Self> {
        match job_type {
            JobType::Incremental => Some(Self::Incremental),
            JobType::Enrich => Some(Self::Enrich),
            JobType::FullCrawl => Some(Self::FullCrawl),
            JobType::GeocoderEnqueue => None,
        }
    }

    /// The trigger types the crawler claims (rule 9).
    pub fn trigger_types() -> Vec<JobType> {
        JobType::run_by(Service::Crawler)
    }
}

/// Final state of a run as the crawler saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOutcome {
    /// `crawl_run.id`.
    pub run_id: i64,
    /// The status the run ended with: the job's own (`success`, `error`, `cancelled`,
    /// `interrupted` at shutdown), or, when someone else closed the run under the job, the
    /// status they closed it with.
    pub status: RunStatus,
    /// Final statistics.
    pub stats: CrawlStats,
    /// Error text, when it failed.
    pub error: Option<String>,
}

/// A running job's handle on its run: statistics, log, batch checkpoints.
pub struct RunCtl<'a> {
    pub(crate) crawler: &'a Crawler,
    run: Run,
    /// The statistics published at each checkpoint and at the end.
    pub(crate) stats: CrawlStats,
    batches: u64,
    /// The client's request total when the run started: the run's own count is the
    /// total now minus this (the client is shared by every run of the process, issue 29).
    requests_at_start: u64,
}

impl<'a> RunCtl<'a> {
    /// `crawl_run.id`.
    pub(crate) fn run_id(&self) -> i64 {
        self.run.id()
    }

    /// Appends a log line to the run (and to tracing).
    pub(crate) async fn log(&self, level: Level, message: &str) -> Result<(), JobError> {
        let run_id = self.run.id();
        match level {
            Level::Error | Level::Warn => tracing::warn!(run_id, "{message}"),
            _ => tracing::info!(run_id, "{message}"),
        }
        self.run.log(level, message).await?;
        Ok(())
    }

    /// A batch boundary: publishes the statistics, then reports whether to go on (rule 10:
    /// cancel flag; a run closed by cleanup; shutdown).
    pub(crate) async fn checkpoint(&mut self) -> Result<Option<End>, JobError> {
        self.batches += 1;
        self.count_requests();
        self.run.write_stats(&self.stats).await?;
        if let Some(hook) = &self.crawler.hook {
            hook(self.run.id(), self.batches).await;
        }
        if self.crawler.shutdown.is_cancelled() {
            return Err(JobError::Shutdown);
        }
        Ok(self.run.check().await?)
    }
}

impl RunCtl<'_> {
    /// Sets `client_requests` to the requests this run made (not the process's total).
    fn count_requests(&mut self) {
        let total = self.crawler.client.stats().requests;
        self.stats
            .client_requests
            .set(total.saturating_sub(self.requests_at_start));
    }
}

/// Options of one job execution.
#[derive(Debug, Clone, Copy, Default)]
pub struct JobOptions {
    /// Enrichment: at most this many bands (None = the whole queue).
    pub max_bands: Option<usize>,
}

/// Runs one job as a `crawl_run` (see the module header). Errors only when the run itself
/// cannot be opened or closed (database down).
pub async fn execute(
    crawler: &Crawler,
    kind: JobKind,
    trigger_id: Option<i64>,
    opts: JobOptions,
) -> Result<RunOutcome, DbError> {
    let owner = crawler.owner().await?;
    let run = Run::start(&crawler.pool, kind.job_type(), trigger_id, owner.as_ref()).await?;
    let mut ctl = RunCtl {
        crawler,
        run,
        stats: CrawlStats::default(),
        batches: 0,
        requests_at_start: crawler.client.stats().requests,
    };
    ctl.stats.failed.add(0);
    let origin = match trigger_id {
        Some(t) => format!("trigger {t}"),
        None => "schedule".to_string(),
    };
    let _ = ctl
        .log(
            Level::Info,
            &format!("{} started ({origin})", kind.job_type()),
        )
        .await;
    let body = AssertUnwindSafe(run_body(&mut ctl, kind, opts))
        .catch_unwind()
        .await;
    let result = body.unwrap_or_else(|panic| Err(JobError::Panicked(panic_text(&panic))));
    close(ctl, kind, result).await
}

async fn run_body(ctl: &mut RunCtl<'_>, kind: JobKind, opts: JobOptions) -> Result<End, JobError> {
    match kind {
        JobKind::Incremental => crate::incremental::run(ctl).await,
        JobKind::Enrich => crate::enrich::run(ctl, opts.max_bands).await,
        JobKind::FullCrawl => crate::full_crawl::run(ctl).await,
    }
}

fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    format!("job panicked: {}", panic_message(panic.as_ref()))
}

/// Bands inserted or changed by a run need `band_locations` rows: hand the work to the
/// enqueue daemon through a `geocoder_enqueue` trigger (one pending at a time) rather than
/// waiting for its hourly scan. Best effort: the daemon's own scan is the safety net.
async fn request_enqueue_if_changed(crawler: &Crawler, stats: &CrawlStats) {
    if stats.inserted.get() + stats.updated.get() == 0 {
        return;
    }
    match triggers::request_once(
        &crawler.pool,
        JobType::GeocoderEnqueue,
        Service::Crawler.as_str(),
    )
    .await
    {
        Ok(Some(id)) => tracing::info!(trigger = id, "requested an enqueue scan"),
        Ok(None) => {}
        Err(e) => tracing::warn!(error = %e, "could not request an enqueue scan"),
    }
}

/// Why the job stopped, from its body's result.
fn end_of(result: Result<End, JobError>) -> End {
    match result {
        Ok(end) => end,
        Err(JobError::Shutdown) => End::Shutdown,
        Err(e) => End::Failed(e.to_string()),
    }
}

/// Closes the run the way its body ended ([`Run::close`] owns the status and the line).
async fn close(
    mut ctl: RunCtl<'_>,
    kind: JobKind,
    result: Result<End, JobError>,
) -> Result<RunOutcome, DbError> {
    let end = end_of(result);
    ctl.count_requests();
    let RunCtl {
        crawler,
        run,
        stats,
        ..
    } = ctl;
    let run_id = run.id();
    let status = run.close(&end, &stats, &stats.summary()).await?;
    bandmap_metrics::crawl::run_ended(kind.job_type().as_str(), status.as_str());
    request_enqueue_if_changed(crawler, &stats).await;
    Ok(RunOutcome {
        run_id,
        status,
        stats,
        error: end.error(kind.job_type()),
    })
}
