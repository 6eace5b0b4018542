//! The enqueue daemon (rules 11, 12): turns every band's location into `band_locations`
//! rows — one `pending` row per step and place, or one `country_only` row at the country
//! centroid — idempotently (unique key `band_locations_identity`), each execution recorded
//! as a `crawl_run` of type `geocoder_enqueue` with honest counts. See docs/enqueue.md.
//!
//! Entry points: [`run`] (the daemon loop; [`run_with`] with other periods), [`run_once`] (one scan), [`poll_once`] (one
//! trigger poll).

mod daemon;
mod error;
mod health;
mod insert;
mod names;
pub mod plan;
mod report;
mod scan;

pub use daemon::{JOB_TYPE, POLL_INTERVAL, Periods, Poll, SERVICE, poll_once, run, run_with};
pub use error::EnqueueError;
pub use health::{judge as judge_last_scan, max_scan_age};
pub use insert::MAX_FAILURE_LINES;
pub use names::SharedNames;
pub use report::ScanReport;
pub use scan::{BATCH_SIZE, run_once};
