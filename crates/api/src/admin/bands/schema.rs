//! Response shapes of the band endpoints (CONTRACT §6). The rows are `crates/db`'s, answered
//! as they are read (docs/architecture.md, "A row answered as it is read is not copied").

use serde::Serialize;
use utoipa::ToSchema;

/// Every column of a band, as `crates/db` reads it.
pub use bandmap_db::bands::admin::BandDetail as Band;
/// One row of `GET /admin/api/bands`, as `crates/db` reads it.
pub use bandmap_db::bands::admin::BandListItem as BandItem;
/// One LLM call about the band, as `crates/db` reads it.
pub use bandmap_db::bands::admin::BandLlmCall as BandLlmCallRow;
/// One `band_locations` row, as `crates/db` reads it.
pub use bandmap_db::bands::admin::BandLocation as BandLocationRow;

/// A page of bands.
#[derive(Debug, Serialize, ToSchema)]
pub struct BandPage {
    pub items: Vec<BandItem>,
    /// Rows matching the filters.
    pub total: i64,
    pub limit: i64,
    pub offset: i64,
}

/// `GET /admin/api/bands/{ma_id}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct BandDetailResponse {
    pub band: Band,
    pub locations: Vec<BandLocationRow>,
    /// Newest first, at most 200 (`llm_calls_total` says how many there are; every one is
    /// listed, paged, by `GET /admin/api/llm?ma_id=`).
    pub llm_calls: Vec<BandLlmCallRow>,
    /// The band's LLM calls in all, so the cap of `llm_calls` is never silent.
    pub llm_calls_total: i64,
}
