//! Admin reads and edits of `bands` (CONTRACT §6): the filtered list, one band with its
//! locations and LLM calls, the PATCH that locks edited fields, conflict resolution, and
//! the queries of the in-memory band search ([`search`]).
//! Every write runs in one transaction together with its audit row.

mod detail;
mod edit;
mod fields;
mod list;
pub mod search;
mod unlock;

pub use detail::{
    BandDetail, BandLlmCall, BandLocation, band_detail, llm_calls, llm_calls_total, locations,
};
pub use edit::{
    Audit, ConflictAction, CountryCodeOf, ResolveOutcome, patch_band, resolve_conflict,
};
pub use fields::{BandField, FieldValue};
pub use list::{
    BandFilter, BandListItem, BandSort, Selection, SortKey, explain, explain_selected_page,
    list_bands_sql, list_selected,
};
pub use unlock::{UnlockOutcome, unlock_field};
