//! The in-memory map index of `serve`: size and rebuild time.

use metrics::{Unit, describe_gauge, describe_histogram, gauge, histogram};
use std::time::Duration;

/// Points in the installed snapshot.
pub const POINTS: &str = "bandmap_map_index_points";
/// Duration of each rebuild (load from PostgreSQL and build).
pub const REBUILD: &str = "bandmap_map_index_rebuild_duration_seconds";
/// Data version (`map_version` counter) of the installed snapshot.
pub const VERSION: &str = "bandmap_map_index_version";

pub(crate) fn describe() {
    describe_gauge!(
        POINTS,
        Unit::Count,
        "points in the map index snapshot in use"
    );
    describe_histogram!(
        REBUILD,
        Unit::Seconds,
        "map index rebuilds: load from PostgreSQL and build"
    );
    describe_gauge!(VERSION, "data version of the map index snapshot in use");
}

/// A snapshot of `points` points at data version `version` was built in `took`.
pub fn rebuilt(points: usize, version: i64, took: Duration) {
    gauge!(POINTS).set(points as f64);
    gauge!(VERSION).set(version as f64);
    histogram!(REBUILD).record(took.as_secs_f64());
}
