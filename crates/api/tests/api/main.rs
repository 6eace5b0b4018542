//! The integration tests of `bandmap-api`, one test binary: each former `tests/*.rs` file
//! is a module, the shared helpers are `support`. `tests/metrics.rs` stays a binary of its
//! own: it installs the process-wide metrics recorder, and the gauges it reads (the map
//! index size) would be moved by the other tests' apps running beside it.

mod admin_console;
mod admin_docs;
mod admin_geocoding;
mod admin_jobs;
mod admin_locations;
mod admin_monitoring;
mod auth;
mod bands;
mod bands_bench;
mod client_address;
mod foundation;
mod front_end_modules;
mod import;
mod import_limits;
mod limits;
mod login_flood;
mod open_web;
mod probes;
mod public_card_details;
mod public_cards;
mod public_clusters;
mod public_clusters_families;
mod public_countries;
mod public_flows;
mod public_search_memory;
mod security_headers;
mod sessions_end;
mod static_files;
mod support;
mod typed_params;
mod wire_shapes;
