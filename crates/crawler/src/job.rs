//! One job = one `crawl_run`: opened with its trigger and this instance as owner, fed with
//! `crawl_log` lines and progress statistics, checked for cancellation at each batch
//! (rule 10), and closed by the job itself: `success`, `cancelled` (admin cancel only),
//! `interrupted` when the service shuts down under it (CONTRACT §3), or `error` with the
//! message. A panic inside a job is caught here and closes the run as `error`; it never
//! reaches the scheduler loop.

use crate::context::Crawler;
use crate::error::JobError;
use bandmap_db::runs::{self, Level, RunEnd, RunType};
use bandmap_db::{DbError, jobs};
use futures::FutureExt;
use serde_json::{Map, Value, json};
use std::panic::AssertUnwindSafe;

/// The crawler's job kinds.
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
    /// `job_triggers.job_type` values the crawler claims (rule 9).
    pub const TRIGGER_TYPES: [&'static str; 3] = ["enrich", "incremental", "full_crawl"];

    /// The run type.
    pub fn run_type(self) -> RunType {
        match self {
            Self::Incremental => RunType::Incremental,
            Self::Enrich => RunType::Enrich,
            Self::FullCrawl => RunType::FullCrawl,
        }
    }

    /// From a trigger's `job_type`.
    pub fn parse(job_type: &str) -> Option<Self> {
        match job_type {
            "incremental" => Some(Self::Incremental),
            "enrich" => Some(Self::Enrich),
            "full_crawl" => Some(Self::FullCrawl),
            _ => None,
        }
    }
}

/// How a job body ended, when it did not fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Finished its work.
    Done,
    /// Saw `cancel_requested`.
    Cancelled,
    /// Its run was closed under it (cleanup or another instance's recovery).
    Closed,
}

/// Final state of a run as the crawler saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOutcome {
    /// `crawl_run.id`.
    pub run_id: i64,
    /// `success`, `error`, `cancelled`, `interrupted` (shutdown), or `closed` when someone
    /// else closed it.
    pub status: &'static str,
    /// Final statistics.
    pub stats: Value,
    /// Error text, when it failed.
    pub error: Option<String>,
}

/// A running job's handle on its run: statistics, log, batch checkpoints.
pub struct RunCtl<'a> {
    pub(crate) crawler: &'a Crawler,
    pub(crate) run_id: i64,
    stats: Map<String, Value>,
    batches: u64,
}

impl<'a> RunCtl<'a> {
    /// Adds `n` to a counter of the statistics.
    pub(crate) fn add(&mut self, key: &str, n: u64) {
        let cur = self.stats.get(key).and_then(Value::as_u64).unwrap_or(0);
        self.stats.insert(key.to_string(), json!(cur + n));
    }

    /// Sets a statistic.
    pub(crate) fn set(&mut self, key: &str, v: Value) {
        self.stats.insert(key.to_string(), v);
    }

    /// A counter's value.
    pub(crate) fn get(&self, key: &str) -> u64 {
        self.stats.get(key).and_then(Value::as_u64).unwrap_or(0)
    }

    /// Appends a log line to the run (and to tracing).
    pub(crate) async fn log(&self, level: Level, message: &str) -> Result<(), JobError> {
        match level {
            Level::Error | Level::Warn => tracing::warn!(run_id = self.run_id, "{message}"),
            _ => tracing::info!(run_id = self.run_id, "{message}"),
        }
        runs::log(&self.crawler.pool, Some(self.run_id), level, message).await?;
        Ok(())
    }

    /// A batch boundary: publishes the statistics, then reports whether to go on (rule 10:
    /// cancel flag; a run closed by cleanup; shutdown).
    pub(crate) async fn checkpoint(&mut self) -> Result<Option<Flow>, JobError> {
        self.batches += 1;
        let requests = self.crawler.client.stats().requests;
        self.set("client_requests", json!(requests));
        runs::write_stats(&self.crawler.pool, self.run_id, &self.stats_value()).await?;
        if let Some(hook) = &self.crawler.hook {
            hook(self.run_id, self.batches).await;
        }
        if self.crawler.shutdown.is_cancelled() {
            return Err(JobError::Shutdown);
        }
        if !runs::still_running(&self.crawler.pool, self.run_id).await? {
            return Ok(Some(Flow::Closed));
        }
        if runs::cancel_requested(&self.crawler.pool, self.run_id).await? {
            return Ok(Some(Flow::Cancelled));
        }
        Ok(None)
    }

    fn stats_value(&self) -> Value {
        Value::Object(self.stats.clone())
    }

    /// The `k=v` summary of the counters, for the last log line.
    fn summary(&self) -> String {
        self.stats
            .iter()
            .filter(|(_, v)| v.is_u64())
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
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
    let run_id =
        runs::start_owned(&crawler.pool, kind.run_type(), trigger_id, owner.as_ref()).await?;
    if let Some(t) = trigger_id {
        jobs::attach_run(&crawler.pool, t, run_id).await?;
    }
    let mut ctl = RunCtl {
        crawler,
        run_id,
        stats: Map::new(),
        batches: 0,
    };
    ctl.add("failed", 0);
    let origin = match trigger_id {
        Some(t) => format!("trigger {t}"),
        None => "schedule".to_string(),
    };
    let _ = ctl
        .log(
            Level::Info,
            &format!("{} started ({origin})", kind.run_type()),
        )
        .await;
    let body = AssertUnwindSafe(run_body(&mut ctl, kind, opts))
        .catch_unwind()
        .await;
    let result = body.unwrap_or_else(|panic| Err(JobError::Panicked(panic_text(&panic))));
    close(&mut ctl, kind, result).await
}

async fn run_body(ctl: &mut RunCtl<'_>, kind: JobKind, opts: JobOptions) -> Result<Flow, JobError> {
    match kind {
        JobKind::Incremental => crate::incremental::run(ctl).await,
        JobKind::Enrich => crate::enrich::run(ctl, opts.max_bands).await,
        JobKind::FullCrawl => crate::full_crawl::run(ctl).await,
    }
}

fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    let msg = panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string());
    format!("job panicked: {msg}")
}

/// Bands inserted or changed by a run need `band_locations` rows: hand the work to the
/// enqueue daemon through a `geocoder_enqueue` trigger (one pending at a time) rather than
/// waiting for its hourly scan. Best effort: the daemon's own scan is the safety net.
async fn request_enqueue_if_changed(ctl: &RunCtl<'_>, stats: &serde_json::Value) {
    let count = |k: &str| {
        stats
            .get(k)
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(0)
    };
    if count("inserted") + count("updated") == 0 {
        return;
    }
    match bandmap_db::jobs::request_once(&ctl.crawler.pool, "geocoder_enqueue", "crawler").await {
        Ok(Some(id)) => tracing::info!(trigger = id, "requested an enqueue scan"),
        Ok(None) => {}
        Err(e) => tracing::warn!(error = %e, "could not request an enqueue scan"),
    }
}

async fn close(
    ctl: &mut RunCtl<'_>,
    kind: JobKind,
    result: Result<Flow, JobError>,
) -> Result<RunOutcome, DbError> {
    let pool = &ctl.crawler.pool;
    let (status, end, error) = match &result {
        Ok(Flow::Done) => ("success", Some(RunEnd::Success), None),
        Ok(Flow::Cancelled) => ("cancelled", Some(RunEnd::Cancelled), None),
        Ok(Flow::Closed) => ("closed", None, None),
        // Not `cancelled`: that is the admin's cancel (CONTRACT §3), and it would mark the
        // trigger done although the job did not do its work.
        Err(JobError::Shutdown) => (
            "interrupted",
            Some(RunEnd::Interrupted),
            Some(JobError::Shutdown.to_string()),
        ),
        Err(e) => ("error", Some(RunEnd::Error), Some(e.to_string())),
    };
    let (level, line) = match (&result, &error) {
        (Ok(Flow::Done), _) => (
            Level::Info,
            format!("{} finished: {}", kind.run_type(), ctl.summary()),
        ),
        (Ok(Flow::Cancelled), _) => (
            Level::Warn,
            format!("cancelled at the admin's request: {}", ctl.summary()),
        ),
        (Ok(Flow::Closed), _) => (
            Level::Warn,
            format!("run closed by someone else; stopping: {}", ctl.summary()),
        ),
        (_, Some(e)) => (Level::Error, format!("{e}: {}", ctl.summary())),
        (_, None) => (Level::Error, ctl.summary()),
    };
    // The closing log line is best effort: the run row matters more.
    let _ = ctl.log(level, &line).await;
    let stats = ctl.stats_value();
    if let Some(end) = end {
        runs::finish(pool, ctl.run_id, end, &stats, error.as_deref()).await?;
    }
    request_enqueue_if_changed(ctl, &stats).await;
    Ok(RunOutcome {
        run_id: ctl.run_id,
        status,
        stats,
        error,
    })
}
