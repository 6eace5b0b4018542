//! The integration tests of `bandmap-db`, one test binary: each former
//! `tests/*.rs` file is a module.

mod bands_upsert;
mod connect;
mod enrich_claims;
mod leases;
mod location_lifecycle;
mod manual_requeue;
mod migrations;
mod pipeline_plans;
mod retention;
mod rule4_during_enrichment;
mod runs_jobs;
