//! The counts of one scan and how they are written: the summary log line and the
//! `crawl_run.stats` object.

use bandmap_db::runs::stats::ScanStats;
use serde::Serialize;

/// What one scan did. `created` counts every row created, `country_only` the part of them
/// resolved at once with a country centroid.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ScanReport {
    /// Id of the `crawl_run` that recorded the scan.
    pub run_id: i64,
    /// Bands read (bands that had no `band_locations` row).
    pub bands: u64,
    /// Rows created (pending and country-only).
    pub created: u64,
    /// Country-only rows created (included in `created`).
    pub country_only: u64,
    /// Bands with neither a place nor a usable country: no row.
    pub skipped: u64,
    /// Rows whose insert failed (each logged with its band and the database error).
    pub failed: u64,
    /// Planned rows that already existed (another scanner created them meanwhile).
    pub existing: u64,
    /// Bands whose primary point was synchronised from a country-only row.
    pub primary_points: u64,
    /// Whether the scan stopped early (shutdown, cancel request) instead of reaching the end.
    pub stopped_early: bool,
}

impl ScanReport {
    /// The summary log line.
    pub fn summary(&self) -> String {
        format!(
            "created={} skipped={} failed={} country_only={} bands={}",
            self.created, self.skipped, self.failed, self.country_only, self.bands
        )
    }

    /// The `crawl_run.stats` object.
    pub fn stats(&self) -> ScanStats {
        ScanStats {
            bands: self.bands,
            created: self.created,
            country_only: self.country_only,
            skipped: self.skipped,
            failed: self.failed,
            existing: self.existing,
            primary_points: self.primary_points,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_has_the_contract_keys() {
        let r = ScanReport {
            bands: 5,
            created: 4,
            country_only: 1,
            skipped: 1,
            failed: 2,
            ..ScanReport::default()
        };
        assert_eq!(
            r.summary(),
            "created=4 skipped=1 failed=2 country_only=1 bands=5"
        );
        assert_eq!(r.stats().json()["failed"], 2);
    }
}
