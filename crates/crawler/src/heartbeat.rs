//! The crawler's heartbeat checks (rule 23): database reachable, challenge solver reachable
//! (in recorded mode: the recording directory is readable), last finished run of a crawler
//! job less than 12 hours old.

use crate::context::Crawler;
use crate::job::JobKind;
use bandmap_db::runs;
use bandmap_health::{Check, database_check};
use bandmap_upstream::UpstreamClient;
use serde_json::json;
use sqlx::PgPool;
use std::sync::Arc;

/// Age limit of the last finished run.
pub const LAST_RUN_MAX_HOURS: f64 = 12.0;

/// Fresh probes for one beat.
pub fn checks(crawler: &Crawler) -> Vec<Check> {
    vec![
        database_check(&crawler.pool),
        solver_check(crawler.client.clone(), crawler.settings.source.clone()),
        last_run_check(crawler.pool.clone()),
    ]
}

fn solver_check(client: Arc<UpstreamClient>, source: String) -> Check {
    Check::new("challenge_solver", async move {
        match client.ping().await {
            Ok(()) => Ok(json!(format!("reachable ({source})"))),
            Err(e) => Err(format!("{source}: {e}")),
        }
    })
}

fn last_run_check(pool: PgPool) -> Check {
    Check::new("last_run", async move {
        let row = runs::last_finished(&pool, &JobKind::trigger_types())
            .await
            .map_err(|e| format!("database: {e}"))?;
        match row {
            None => Err("no finished crawler run yet".to_string()),
            Some((id, status, hours)) if hours < LAST_RUN_MAX_HOURS => {
                Ok(json!({"run_id": id, "status": status, "age_hours": hours}))
            }
            Some((id, status, hours)) => Err(format!(
                "last finished run {id} ({status}) is {hours:.1} h old (limit {LAST_RUN_MAX_HOURS} h)"
            )),
        }
    })
}
