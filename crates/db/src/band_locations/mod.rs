//! `band_locations`: one row per step and place of a band (SPEC §5), and the geocode_status
//! state machine. One file per user of the table so each operation has one home.

/// Confidence of a country-centroid point (CONTRACT §3), stored by the enqueue daemon on
/// `country_only` rows and by the geocoder when a place falls back to its country.
pub const CENTROID_CONFIDENCE: f64 = 0.1;
/// Provider stored with a country-centroid point.
pub const CENTROID_PROVIDER: &str = "centroid";

pub mod admin;
pub mod enqueue;
pub mod geocoding;
pub mod primary;
