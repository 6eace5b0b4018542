//! The queries of the in-memory band search behind `GET /admin/api/bands` (the search
//! itself is `bandmap_index::band_search`): the searched and sorted columns of every band
//! with their sort ranks, and the changes since a snapshot ([`sync`]).

mod row;
mod sync;

pub use row::{COLUMNS, SearchRow, rank_columns};
pub use sync::{
    Changes, TOMBSTONE_DAYS, Watermark, changes_since, explain_changes, load_each, prune_tombstones,
};

/// The four text patterns of a filter, in the order of
/// [`BandFilter::patterns`](super::BandFilter::patterns), after PostgreSQL's `lower()`
/// (what `ILIKE` compares).
pub type LoweredPatterns = [Option<String>; 4];
