//! Heartbeat checks of the geocoder (rule 23): database, provider key present, provider
//! reachable (one cheap limited request, or "disabled"), progress within the last 6 h
//! (a row left the queue recently, or nothing is pending, or the worker started less than
//! 6 h ago — a fresh start with a backlog is not a stall), and the gazetteer.

use super::Worker;
use crate::ProviderStatus;
use bandmap_db::band_locations::upkeep;
use bandmap_health::{Check, database_check};
use serde_json::json;

/// Progress window of rule 23.
const PROGRESS_HOURS: i64 = 6;

pub(super) fn checks(w: &Worker) -> Vec<Check> {
    let status = w.geocoder.provider_status();
    let key = Check::new("provider_key", {
        let status = status.clone();
        async move {
            match status {
                ProviderStatus::Ready => Ok(json!("present")),
                ProviderStatus::Disabled(r) if r.contains("GEOCODER_PROVIDER=none") => {
                    Ok(json!(format!("not needed: {r}")))
                }
                ProviderStatus::Disabled(r) => Err(r),
            }
        }
    });
    let reachable = Check::new("provider_reachable", {
        let g = w.geocoder.clone();
        async move { g.probe_provider().await.map(|s| json!(s)) }
    });
    let progress = Check::new("progress", {
        let pool = w.pool.clone();
        let fresh =
            w.started.elapsed() < std::time::Duration::from_secs(PROGRESS_HOURS as u64 * 3600);
        async move {
            let p = upkeep::progress(&pool)
                .await
                .map_err(|e| format!("progress unreadable: {e}"))?;
            let recent = p
                .last_finished
                .is_some_and(|t| t > chrono::Utc::now() - chrono::Duration::hours(PROGRESS_HOURS));
            if p.pending == 0 || recent || fresh {
                Ok(
                    json!({"pending": p.pending, "last_finished": p.last_finished,
                          "started_within_window": fresh}),
                )
            } else {
                Err(format!(
                    "{} rows pending and none finished in the last {PROGRESS_HOURS} h",
                    p.pending
                ))
            }
        }
    });
    let gazetteer = Check::new("gazetteer", {
        let size = w.geocoder.gazetteer_size();
        async move {
            match size {
                Some(n) => Ok(json!(format!("{n} places"))),
                None => Ok(json!("not loaded (GEOCODER_OFFLINE=off or file missing)")),
            }
        }
    });
    vec![database_check(&w.pool), key, reachable, progress, gazetteer]
}
