//! Crawler runs ended by this process. Runs of every process, and the progress of the
//! running ones, come from `crawl_run` ([`crate::db_gauges`]).

use metrics::{Unit, counter, describe_counter};

/// Runs ended by this process, by `job_type` and `status` (the run's final `crawl_run`
/// status, also when another process closed it first).
pub const RUNS_ENDED: &str = "bandmap_crawl_runs_ended_total";

pub(crate) fn describe() {
    describe_counter!(
        RUNS_ENDED,
        Unit::Count,
        "crawler runs ended by this process, by job type and final status"
    );
}

/// A run of `job_type` ended as `status` (both the stored names of `bandmap_db::runs`).
pub fn run_ended(job_type: &'static str, status: &'static str) {
    counter!(RUNS_ENDED, "job_type" => job_type, "status" => status).increment(1);
}
