//! Typed `crawl_run.stats`. Each job writes one of these structs; the JSON object they
//! serialize to is what the admin API and the front end read (keys and values as before
//! the types existed: a crawler counter appears once the job first touched it).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A counter that is absent from the JSON until the job first sets or adds to it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Count(Option<u64>);

impl Count {
    /// Adds `n` (from 0 when unset).
    pub fn add(&mut self, n: u64) {
        self.0 = Some(self.get() + n);
    }

    /// Sets the value.
    pub fn set(&mut self, n: u64) {
        self.0 = Some(n);
    }

    /// The value (0 when unset).
    pub fn get(self) -> u64 {
        self.0.unwrap_or(0)
    }

    /// Whether the job never touched it (then it is left out of the JSON).
    pub fn is_unset(&self) -> bool {
        self.0.is_none()
    }
}

/// Statistics of a crawler job (incremental crawl, enrichment, full crawl). Counters a job
/// does not use stay out of its JSON.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CrawlStats {
    /// Items that failed (the run goes on).
    #[serde(default, skip_serializing_if = "Count::is_unset")]
    pub failed: Count,
    /// Upstream requests made by this instance's client so far.
    #[serde(default, skip_serializing_if = "Count::is_unset")]
    pub client_requests: Count,
    /// Bands listed (crawls) or whose page was read (enrichment).
    #[serde(default, skip_serializing_if = "Count::is_unset")]
    pub bands_seen: Count,
    /// Bands created.
    #[serde(default, skip_serializing_if = "Count::is_unset")]
    pub inserted: Count,
    /// Bands changed.
    #[serde(default, skip_serializing_if = "Count::is_unset")]
    pub updated: Count,
    /// Bands read with nothing to change.
    #[serde(default, skip_serializing_if = "Count::is_unset")]
    pub unchanged: Count,
    /// Band pages enriched.
    #[serde(default, skip_serializing_if = "Count::is_unset")]
    pub enriched: Count,
    /// Full crawl: countries to read.
    #[serde(default, skip_serializing_if = "Count::is_unset")]
    pub countries_total: Count,
    /// Full crawl: position of the country being read (from 1).
    #[serde(default, skip_serializing_if = "Count::is_unset")]
    pub country_index: Count,
    /// Full crawl: code of the country being read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub country_code: Option<String>,
    /// Full crawl: countries read to the end.
    #[serde(default, skip_serializing_if = "Count::is_unset")]
    pub countries_done: Count,
    /// List pages read.
    #[serde(default, skip_serializing_if = "Count::is_unset")]
    pub pages: Count,
    /// List rows that could not be read.
    #[serde(default, skip_serializing_if = "Count::is_unset")]
    pub rows_skipped: Count,
    /// Incremental crawl: the months read (`YYYY-MM`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub months: Option<Vec<String>>,
    /// Incremental crawl: listed bands outside Europe, not written.
    #[serde(default, skip_serializing_if = "Count::is_unset")]
    pub non_european_skipped: Count,
    /// Incremental crawl: bands put back in the enrichment queue.
    #[serde(default, skip_serializing_if = "Count::is_unset")]
    pub enrich_pending_raised: Count,
}

impl CrawlStats {
    /// The JSON object written to `crawl_run.stats`.
    pub fn json(&self) -> Value {
        to_json(self)
    }

    /// The `k=v` summary of the counters (numbers only, in key order), for a log line.
    pub fn summary(&self) -> String {
        match self.json() {
            Value::Object(map) => map
                .iter()
                .filter(|(_, v)| v.is_u64())
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" "),
            _ => String::new(),
        }
    }
}

/// Statistics of an enqueue scan (every key always present).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScanStats {
    /// Bands read (bands that had no `band_locations` row).
    pub bands: u64,
    /// Rows created (pending and country-only).
    pub created: u64,
    /// Country-only rows created (included in `created`).
    pub country_only: u64,
    /// Bands with neither a place nor a usable country: no row.
    pub skipped: u64,
    /// Rows whose insert failed.
    pub failed: u64,
    /// Planned rows that already existed (another scanner created them meanwhile).
    pub existing: u64,
    /// Bands whose primary point was synchronised from a country-only row.
    pub primary_points: u64,
}

impl ScanStats {
    /// The JSON object written to `crawl_run.stats`.
    pub fn json(&self) -> Value {
        to_json(self)
    }
}

/// Serializes statistics (plain structs of numbers and strings: this cannot fail).
fn to_json(stats: &impl Serialize) -> Value {
    serde_json::to_value(stats).unwrap_or_else(|e| {
        tracing::error!(error = %e, "run statistics not serializable");
        Value::Object(serde_json::Map::new())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn untouched_counters_stay_out() {
        let mut s = CrawlStats::default();
        assert_eq!(s.json(), json!({}));
        s.failed.add(0);
        s.bands_seen.add(3);
        s.bands_seen.add(2);
        s.months = Some(vec!["2026-11".into()]);
        assert_eq!(
            s.json(),
            json!({"failed": 0, "bands_seen": 5, "months": ["2026-11"]})
        );
        assert_eq!(s.summary(), "bands_seen=5 failed=0");
        let back: CrawlStats = serde_json::from_value(s.json()).unwrap_or_default();
        assert_eq!(back, s);
    }

    #[test]
    fn scan_stats_have_every_key() {
        let s = ScanStats {
            failed: 2,
            ..ScanStats::default()
        };
        assert_eq!(
            s.json(),
            json!({"bands": 0, "created": 0, "country_only": 0, "skipped": 0, "failed": 2,
                   "existing": 0, "primary_points": 0})
        );
    }
}
