//! `service_health`: one heartbeat row per [`Service`], overwritten at each beat
//! (rules 22–24). `stale` is computed by the readers in SQL.

use crate::Result;
use crate::service::Service;
use serde_json::Value;
use sqlx::PgExecutor;

/// Writes (or overwrites) `service`'s heartbeat row with its state (`ok`/`degraded`), its
/// checks object and the instance that wrote it.
pub async fn write(
    db: impl PgExecutor<'_>,
    service: Service,
    state: &str,
    checks: &Value,
    instance: &str,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO service_health (service, state, checks, instance, last_write_at)
         VALUES ($1, $2, $3, $4, now())
         ON CONFLICT (service) DO UPDATE
         SET state = EXCLUDED.state, checks = EXCLUDED.checks, instance = EXCLUDED.instance,
             last_write_at = now()",
    )
    .bind(service)
    .bind(state)
    .bind(checks)
    .bind(instance)
    .execute(db)
    .await?;
    Ok(())
}
