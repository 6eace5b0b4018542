//! Prometheus metrics of every bandmap process (issue 14 item 2; docs/operations.md
//! "Metrics").
//!
//! - **Hooks** ([`http`], [`index`], [`geocoder`], [`llm`], [`crawl`]): one-line calls made by
//!   the services where the event happens. They record through the `metrics` facade, so
//!   they cost nothing in a process that did not [`install`] the recorder (`METRICS_ADDR`
//!   unset) and tests of the services need no setup.
//! - **Database gauges** ([`db_gauges`]): facts that live in PostgreSQL (`band_locations`
//!   per status, heartbeat age per service, LLM totals per model, crawl runs and the
//!   progress of running ones) are read at scrape time, so any process that serves
//!   `/metrics` shows them, whichever process did the work.
//! - **Endpoint** ([`endpoint`]): `GET /metrics` in the Prometheus text format on its own
//!   listener (`METRICS_ADDR`), never on the public server.
//!
//! Labels are bounded sets chosen by the code (route patterns, statuses, provider and model
//! names from the configuration); no raw URI, user input or secret ever becomes a label.

pub mod crawl;
pub mod db_gauges;
pub mod endpoint;
pub mod geocoder;
pub mod http;
pub mod index;
pub mod llm;
pub mod recorder;

pub use endpoint::{serve, start};
pub use recorder::{MetricsError, install, render};
