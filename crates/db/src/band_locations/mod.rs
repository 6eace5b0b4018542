//! `band_locations`: one row per step and place of a band (SPEC §5), and the geocode_status
//! state machine. One file per user of the table so each operation has one home.

pub mod admin;
pub mod enqueue;
pub mod geocoding;
pub mod primary;
