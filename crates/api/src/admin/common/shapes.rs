//! Response shapes shared by several admin modules: the list envelope, bulk results, the
//! geocoding status counters, and the run, trigger and health rows (each with its OpenAPI
//! schema). Error answers documented by every admin route are here too.

use super::vocab;
use bandmap_db::monitoring::{HealthRow, RunRow, TriggerRow};
use bandmap_db::runs::{JobType, RunStatus, TriggerStatus};
use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use utoipa::ToSchema;

/// A page of a list (CONTRACT §4).
#[derive(Debug, Serialize, ToSchema)]
pub struct ListPage<T> {
    /// The rows of the page.
    pub items: Vec<T>,
    /// Rows matching the filter.
    pub total: i64,
    /// Page size used (default 50, at most 500).
    pub limit: i64,
    /// Rows skipped.
    pub offset: i64,
}

impl<T> ListPage<T> {
    /// Builds a page from rows of another shape.
    pub fn from_rows<R: Into<T>>(rows: Vec<R>, total: i64, page: crate::extract::Page) -> Self {
        ListPage {
            items: rows.into_iter().map(Into::into).collect(),
            total,
            limit: page.limit,
            offset: page.offset,
        }
    }
}

/// Result of a bulk action.
#[derive(Debug, Serialize, ToSchema)]
pub struct Affected {
    /// Rows moved.
    pub affected: u64,
}

/// Rows per `geocode_status`: every state is present (0 when empty).
#[derive(Debug, Default, Serialize, ToSchema)]
pub struct StatusCounts {
    /// Queued.
    pub pending: i64,
    /// Claimed by a worker.
    pub processing: i64,
    /// Geocoded.
    pub done: i64,
    /// Resolved to a country centroid.
    pub country_only: i64,
    /// Waiting for the LLM worker.
    pub llm_needed: i64,
    /// Waiting for an admin.
    pub manual: i64,
    /// Failed for good.
    pub error: i64,
}

impl From<BTreeMap<bandmap_db::band_locations::GeocodeStatus, i64>> for StatusCounts {
    fn from(m: BTreeMap<bandmap_db::band_locations::GeocodeStatus, i64>) -> Self {
        use bandmap_db::band_locations::GeocodeStatus as S;
        let get = |s: S| m.get(&s).copied().unwrap_or(0);
        StatusCounts {
            pending: get(S::Pending),
            processing: get(S::Processing),
            done: get(S::Done),
            country_only: get(S::CountryOnly),
            llm_needed: get(S::LlmNeeded),
            manual: get(S::Manual),
            error: get(S::Error),
        }
    }
}

/// A `crawl_run` row.
#[derive(Debug, Serialize, ToSchema)]
pub struct RunItem {
    /// Run id.
    pub id: i64,
    /// The job it runs.
    #[serde(rename = "type")]
    #[schema(schema_with = vocab::job_type)]
    pub run_type: JobType,
    /// Its status.
    #[schema(schema_with = vocab::run_status)]
    pub status: RunStatus,
    /// Cooperative cancel flag (rule 10).
    pub cancel_requested: bool,
    /// Start.
    pub started_at: DateTime<Utc>,
    /// End.
    pub finished_at: Option<DateTime<Utc>>,
    /// Last progress write.
    pub updated_at: DateTime<Utc>,
    /// Progress statistics (`total`, `processed`, `failed`…).
    pub stats: Value,
    /// Error text (may contain scraped text: escape it).
    pub error: Option<String>,
    /// Trigger that started it.
    pub trigger_id: Option<i64>,
}

impl From<RunRow> for RunItem {
    fn from(r: RunRow) -> Self {
        RunItem {
            id: r.id,
            run_type: r.run_type,
            status: r.status,
            cancel_requested: r.cancel_requested,
            started_at: r.started_at,
            finished_at: r.finished_at,
            updated_at: r.updated_at,
            stats: r.stats,
            error: r.error,
            trigger_id: r.trigger_id,
        }
    }
}

/// A `job_triggers` row.
#[derive(Debug, Serialize, ToSchema)]
pub struct TriggerItem {
    /// Trigger id.
    pub id: i64,
    /// Requested job type (free text: an unknown type is closed as `error`).
    pub job_type: String,
    /// Its state.
    #[schema(schema_with = vocab::trigger_status)]
    pub status: TriggerStatus,
    /// Creation.
    pub created_at: DateTime<Utc>,
    /// Admin who asked.
    pub created_by: Option<String>,
    /// Claim time.
    pub claimed_at: Option<DateTime<Utc>>,
    /// End time.
    pub finished_at: Option<DateTime<Utc>>,
    /// Run it started.
    pub run_id: Option<i64>,
    /// Error text.
    pub error: Option<String>,
}

impl From<TriggerRow> for TriggerItem {
    fn from(r: TriggerRow) -> Self {
        TriggerItem {
            id: r.id,
            job_type: r.job_type,
            status: r.status,
            created_at: r.created_at,
            created_by: r.created_by,
            claimed_at: r.claimed_at,
            finished_at: r.finished_at,
            run_id: r.run_id,
            error: r.error,
        }
    }
}

/// A `service_health` row with `stale` computed in SQL (rule 24).
#[derive(Debug, Serialize, ToSchema)]
pub struct HealthItem {
    /// `crawler`, `geocoder`, `enqueue`, `llm`.
    pub service: String,
    /// `ok` or `degraded` (as the service last wrote it).
    pub state: String,
    /// Check results, by check name.
    pub checks: Value,
    /// Instance that wrote the row.
    pub instance: Option<String>,
    /// Last heartbeat write.
    pub last_write_at: DateTime<Utc>,
    /// True when the last write is more than 2 hours old, whatever `state` says.
    pub stale: bool,
}

impl From<HealthRow> for HealthItem {
    fn from(r: HealthRow) -> Self {
        HealthItem {
            service: r.service,
            state: r.state,
            checks: r.checks,
            instance: r.instance,
            last_write_at: r.last_write_at,
            stale: r.stale,
        }
    }
}
