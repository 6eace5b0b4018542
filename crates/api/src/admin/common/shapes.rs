//! Response shapes shared by several admin modules: the list envelope, bulk results, the
//! geocoding status counters, and the run, trigger and health rows (the `crates/db` rows
//! themselves, whose OpenAPI schemas are derived there).

use serde::Serialize;
use std::collections::BTreeMap;
use utoipa::ToSchema;

/// The run, trigger and health rows go out as `crates/db` reads them (their schemas are
/// derived there, under these names).
pub use bandmap_db::monitoring::{
    HealthRow as HealthItem, RunRow as RunItem, TriggerRow as TriggerItem,
};

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
