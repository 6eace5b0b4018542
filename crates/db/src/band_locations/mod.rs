//! `band_locations`: one row per step and place of a band (SPEC §5), and the one home of
//! its lifecycle. No other crate writes this table; workers and the admin API call the
//! typed transitions below.
//!
//! **States** ([`GeocodeStatus`], the CHECK `band_locations_status_check`): `pending` →
//! `processing` → `done` | `country_only` | `llm_needed` | `error`; `llm_needed` → `done` |
//! `manual` | `error`. `done` and `country_only` are *located* (their point counts).
//!
//! **Kinds** ([`LocationKind`], derived by [`LocationKind::of`], never stored): a *place*
//! to geocode, a row naming only its *country* (located at the centroid), or an admin's
//! *manual* override (`step_order` = [`kind::MANUAL_STEP`]). No transition changes the
//! columns a place/country kind is read from, so a requeued row keeps its kind.
//!
//! **Transitions**, each refused (`None`/`false`, row untouched) when the row is no longer
//! in the state it requires; the worker transitions take a claim token that only their
//! claim makes ([`claim::GeocodeClaim`], [`llm::LlmLease`]), so they cannot be called on an
//! unclaimed row:
//! - [`enqueue::insert_locations`]: new rows, `pending` or `country_only` (enqueue daemon).
//! - [`claim::claim`] / [`claim::claim_batch`]: `pending` (due) → `processing` (geocoder).
//! - [`done::mark_done`]: → `done`, by the geocoder (under its claim), the LLM worker (under
//!   its lease) or any writer of an accepted result ([`done::DoneBy`]); never over a manual
//!   override. [`done::finish_batch`]: claimed rows → `done`/`country_only`. Both re-sync
//!   the band's primary point ([`primary`]) in the same transaction.
//! - [`exits::record_failure`]: `processing` → `pending` (retry with backoff) or
//!   `llm_needed` (hand to the LLM after [`exits::MAX_ATTEMPTS`] or when every fallback
//!   failed); [`exits::mark_error`]: → `error`; [`exits::wait`]: → `pending` later, no
//!   attempt spent; [`exits::release`]: → `pending` now, unprocessed.
//! - [`upkeep::repair_stuck`]: stuck `processing` → `pending`; [`upkeep::wake_waiting`].
//! - [`llm::claim`]: leases a due `llm_needed` row (status kept); [`llm::mark_manual`],
//!   [`llm::mark_error`]: → `manual` / `error`; [`llm::mark_retry`], [`llm::postpone`]:
//!   stays `llm_needed`, due later.
//! - [`manual_point::set_manual_point`]: any → `done` as a manual override (admin).
//! - [`requeue::requeue_one`] / [`requeue::bulk_requeue`]: → `pending`, attempts 0, kind
//!   kept, a manual override abandoned (admin).

/// Confidence of a country-centroid point (CONTRACT §3), stored by the enqueue daemon on
/// `country_only` rows and by the geocoder when a place falls back to its country.
pub const CENTROID_CONFIDENCE: f64 = 0.1;
/// Provider stored with a country-centroid point.
pub const CENTROID_PROVIDER: &str = "centroid";

/// The words ending the note of a row whose location names a region alone (issue 30): the
/// geocoder writes them into `error`, and the public card reads them to say "région
/// seulement" instead of "lieu non localisé".
pub const REGION_ONLY_NOTE: &str = "région seulement";

pub mod admin;
pub mod claim;
pub mod done;
pub mod enqueue;
pub mod exits;
pub mod kind;
pub mod llm;
pub mod manual_point;
pub mod primary;
pub mod requeue;
pub mod status;
pub mod upkeep;

pub use kind::LocationKind;
pub use status::GeocodeStatus;
