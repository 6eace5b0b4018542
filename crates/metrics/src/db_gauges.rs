//! Gauges read from PostgreSQL at scrape time: they describe the shared state, so every
//! process serving `/metrics` shows the same values whichever process did the work. A few
//! cheap aggregate queries, at most once per [`MIN_INTERVAL`] (a faster scraper gets the
//! last values).

use bandmap_db::runs::{JobType, RunStatus};
use bandmap_db::{PgPool, catalogue_stats, geocoding_stats, llm_cache, monitoring};
use metrics::{Unit, counter, describe_counter, describe_gauge, gauge};
use std::collections::BTreeSet;
use std::time::{Duration, Instant};
use tokio::sync::Mutex;

/// Shortest time between two refreshes from the database.
pub const MIN_INTERVAL: Duration = Duration::from_secs(5);
/// Longest a refresh may take before the scrape answers with the previous values.
pub const TIMEOUT: Duration = Duration::from_secs(3);

/// Bands in the catalogue.
pub const BANDS: &str = "bandmap_bands";
/// `band_locations` rows, by `status` (every status, 0 when none).
pub const LOCATIONS: &str = "bandmap_band_locations";
/// Seconds since each background service's last heartbeat, by `service`.
pub const HEARTBEAT_AGE: &str = "bandmap_heartbeat_age_seconds";
/// 1 when the service's last heartbeat said `degraded`, else 0, by `service`.
pub const HEARTBEAT_DEGRADED: &str = "bandmap_heartbeat_degraded";
/// LLM calls recorded in `llm_cache` (all processes, all time), by `model`.
pub const LLM_CALLS: &str = "bandmap_llm_recorded_calls";
/// Malformed LLM replies recorded, by `model`.
pub const LLM_MALFORMED: &str = "bandmap_llm_recorded_malformed";
/// LLM tokens recorded, by `model` and `kind` (`prompt`, `completion`).
pub const LLM_TOKENS: &str = "bandmap_llm_recorded_tokens";
/// LLM cost recorded, USD, by `model`.
pub const LLM_COST: &str = "bandmap_llm_recorded_cost_usd";
/// `crawl_run` rows, by `job_type` and `status` (every pair, 0 when none).
pub const CRAWL_RUNS: &str = "bandmap_crawl_runs";
/// Progress counters of the running runs (summed per type), by `job_type` and `counter`
/// (the keys of the run's stats: `bands_seen`, `inserted`, `countries_done`, …).
pub const CRAWL_PROGRESS: &str = "bandmap_crawl_run_progress";
/// Failed refreshes of these gauges.
pub const REFRESH_ERRORS: &str = "bandmap_metrics_db_refresh_errors_total";

pub(crate) fn describe() {
    describe_gauge!(BANDS, Unit::Count, "bands in the catalogue");
    describe_gauge!(
        LOCATIONS,
        Unit::Count,
        "band_locations rows by geocode status"
    );
    describe_gauge!(
        HEARTBEAT_AGE,
        Unit::Seconds,
        "seconds since the background service's last heartbeat (service_health)"
    );
    describe_gauge!(
        HEARTBEAT_DEGRADED,
        "1 when the service's last heartbeat said degraded"
    );
    describe_gauge!(
        LLM_CALLS,
        Unit::Count,
        "LLM calls recorded in llm_cache (every process, all time) by model"
    );
    describe_gauge!(
        LLM_MALFORMED,
        Unit::Count,
        "malformed LLM replies recorded in llm_cache by model"
    );
    describe_gauge!(
        LLM_TOKENS,
        Unit::Count,
        "LLM tokens recorded in llm_cache by model and kind"
    );
    describe_gauge!(LLM_COST, "LLM cost recorded in llm_cache, USD, by model");
    describe_gauge!(
        CRAWL_RUNS,
        Unit::Count,
        "crawl_run rows by job type and status"
    );
    describe_gauge!(
        CRAWL_PROGRESS,
        "progress counters of the running crawl runs, by job type and counter"
    );
    describe_counter!(
        REFRESH_ERRORS,
        Unit::Count,
        "scrapes whose database gauges could not be refreshed"
    );
}

/// The refresher of one `/metrics` listener.
#[derive(Debug)]
pub struct DbGauges {
    pool: PgPool,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    last: Option<Instant>,
    /// Label values set by the previous refresh whose rows may vanish: set to 0 when gone,
    /// so a gauge never shows a value the database no longer holds.
    heartbeats: BTreeSet<String>,
    progress: BTreeSet<(&'static str, String)>,
}

impl DbGauges {
    /// A refresher reading `pool`.
    pub fn new(pool: PgPool) -> DbGauges {
        DbGauges {
            pool,
            state: Mutex::new(State::default()),
        }
    }

    /// Refreshes the gauges unless the last refresh is younger than [`MIN_INTERVAL`]. A
    /// failure or a timeout is logged and counted; the previous values stay.
    pub async fn refresh(&self) {
        let mut state = self.state.lock().await;
        if state.last.is_some_and(|t| t.elapsed() < MIN_INTERVAL) {
            return;
        }
        match tokio::time::timeout(TIMEOUT, self.read(&mut state)).await {
            Ok(Ok(())) => state.last = Some(Instant::now()),
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "metrics: reading the database gauges failed");
                counter!(REFRESH_ERRORS).increment(1);
            }
            Err(_) => {
                tracing::warn!("metrics: reading the database gauges timed out");
                counter!(REFRESH_ERRORS).increment(1);
            }
        }
    }

    async fn read(&self, state: &mut State) -> Result<(), bandmap_db::DbError> {
        let pool = &self.pool;
        let totals = catalogue_stats::totals(pool).await?;
        gauge!(BANDS).set(totals.bands_total as f64);
        for (status, n) in geocoding_stats::status_counts(pool).await? {
            gauge!(LOCATIONS, "status" => status.as_str()).set(n as f64);
        }
        self.heartbeats(state).await?;
        for m in llm_cache::model_stats(pool).await? {
            gauge!(LLM_CALLS, "model" => m.model.clone()).set(m.calls as f64);
            gauge!(LLM_MALFORMED, "model" => m.model.clone()).set(m.malformed as f64);
            gauge!(LLM_TOKENS, "model" => m.model.clone(), "kind" => "prompt")
                .set(m.prompt_tokens as f64);
            gauge!(LLM_TOKENS, "model" => m.model.clone(), "kind" => "completion")
                .set(m.completion_tokens as f64);
            gauge!(LLM_COST, "model" => m.model).set(m.cost_usd);
        }
        self.crawl_runs(state).await
    }

    async fn heartbeats(&self, state: &mut State) -> Result<(), bandmap_db::DbError> {
        let now = chrono::Utc::now();
        let mut seen = BTreeSet::new();
        for h in monitoring::health(&self.pool).await? {
            let age = (now - h.last_write_at).num_milliseconds().max(0) as f64 / 1000.0;
            gauge!(HEARTBEAT_AGE, "service" => h.service.clone()).set(age);
            let degraded = if h.state == "ok" { 0.0 } else { 1.0 };
            gauge!(HEARTBEAT_DEGRADED, "service" => h.service.clone()).set(degraded);
            seen.insert(h.service);
        }
        // A deleted row (an admin cleaning up) leaves no value behind.
        for gone in state.heartbeats.difference(&seen) {
            gauge!(HEARTBEAT_DEGRADED, "service" => gone.clone()).set(0.0);
            gauge!(HEARTBEAT_AGE, "service" => gone.clone()).set(0.0);
        }
        state.heartbeats = seen;
        Ok(())
    }

    async fn crawl_runs(&self, state: &mut State) -> Result<(), bandmap_db::DbError> {
        let rows: Vec<(JobType, RunStatus, i64)> =
            sqlx::query_as("SELECT type, status, count(*) FROM crawl_run GROUP BY type, status")
                .fetch_all(&self.pool)
                .await?;
        for t in JobType::ALL {
            for s in RunStatus::ALL {
                let n = rows
                    .iter()
                    .find(|(rt, rs, _)| rt == t && rs == s)
                    .map_or(0, |r| r.2);
                gauge!(CRAWL_RUNS, "job_type" => t.as_str(), "status" => s.as_str()).set(n as f64);
            }
        }
        let mut progress: std::collections::BTreeMap<(&'static str, String), f64> =
            Default::default();
        for run in monitoring::running_runs(&self.pool).await? {
            let Some(stats) = run.stats.as_object() else {
                continue;
            };
            for (key, value) in stats {
                if let Some(v) = value.as_f64() {
                    *progress
                        .entry((run.run_type.as_str(), key.clone()))
                        .or_default() += v;
                }
            }
        }
        for gone in state.progress.iter().filter(|k| !progress.contains_key(*k)) {
            gauge!(CRAWL_PROGRESS, "job_type" => gone.0, "counter" => gone.1.clone()).set(0.0);
        }
        for ((job_type, key), v) in &progress {
            gauge!(CRAWL_PROGRESS, "job_type" => *job_type, "counter" => key.clone()).set(*v);
        }
        state.progress = progress.into_keys().collect();
        Ok(())
    }
}
