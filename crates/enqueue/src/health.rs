//! The enqueue heartbeat (rule 22): `database` reachable and `last_scan` — the latest
//! finished scan did not fail and a successful scan finished within twice the automatic
//! interval plus a margin (a fresh process gets that long before it is judged).

use bandmap_db::band_locations::enqueue::{ScanHistory, scan_history};
use bandmap_db::runs::RunStatus;
use bandmap_health::{Check, database_check};
use serde_json::{Value, json};
use sqlx::PgPool;
use std::time::{Duration, Instant};

/// Slack added to twice the automatic interval before the last scan counts as too old.
const MARGIN: Duration = Duration::from_secs(15 * 60);

/// Oldest acceptable successful scan for an automatic interval.
pub fn max_scan_age(auto_interval: Duration) -> Duration {
    auto_interval.saturating_mul(2).saturating_add(MARGIN)
}

/// Judges the scan history: `Ok(detail)` or `Err(reason)`.
pub fn judge(h: &ScanHistory, max_age: Duration, uptime: Duration) -> Result<Value, String> {
    if h.last_status.as_deref() == Some(RunStatus::Error.as_str()) {
        let why = h.last_error.as_deref().unwrap_or("no message");
        return Err(format!("last scan failed: {why}"));
    }
    let limit = max_age.as_secs_f64();
    match h.success_age_secs {
        Some(age) if age <= limit => Ok(json!({"last_success_age_s": age.round()})),
        Some(age) => Err(format!(
            "last successful scan finished {:.0} min ago (limit {:.0} min)",
            age / 60.0,
            limit / 60.0
        )),
        None if uptime <= max_age => Ok(json!("no scan finished yet")),
        None => Err("no successful scan yet".to_owned()),
    }
}

/// The checks of one beat.
pub fn checks(pool: &PgPool, max_age: Duration, started: Instant) -> Vec<Check> {
    let p = pool.clone();
    let last_scan = Check::new("last_scan", async move {
        let history = scan_history(&p)
            .await
            .map_err(|e| format!("scan history unreadable: {e}"))?;
        judge(&history, max_age, started.elapsed())
    });
    vec![database_check(pool), last_scan]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn history(status: Option<&str>, age: Option<f64>) -> ScanHistory {
        ScanHistory {
            last_status: status.map(str::to_owned),
            last_error: status.filter(|s| *s == "error").map(|_| "boom".to_owned()),
            success_age_secs: age,
        }
    }

    #[test]
    fn judges_failures_age_and_fresh_starts() {
        let max = max_scan_age(Duration::from_secs(3600));
        assert_eq!(max, Duration::from_secs(2 * 3600 + 900));
        let short = Duration::from_secs(10);
        let long = Duration::from_secs(86_400);
        assert!(judge(&history(Some("success"), Some(60.0)), max, long).is_ok());
        assert!(judge(&history(Some("error"), Some(60.0)), max, long).is_err());
        assert!(judge(&history(Some("success"), Some(9_000.0)), max, long).is_err());
        assert!(judge(&history(Some("interrupted"), Some(60.0)), max, long).is_ok());
        assert!(judge(&history(None, None), max, short).is_ok());
        assert!(judge(&history(None, None), max, long).is_err());
    }
}
