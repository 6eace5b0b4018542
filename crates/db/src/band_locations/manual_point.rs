//! An admin's override (SPEC "PATCH /admin/api/locations/:id"): the row becomes
//! [`super::kind::LocationKind::Manual`] — `done` at the admin's point, `step_order`
//! [`MANUAL_STEP`] — from any status. No worker writes such a row afterwards; a requeue
//! gives it back to the pipeline.

use super::kind::MANUAL_STEP;
use crate::{Point, Result};
use sqlx::PgConnection;

/// Manual coordinates: status `done`, `step_order` -1, provider `manual`, confidence 1,
/// error cleared, and the band's primary point re-synchronised — all on the caller's
/// transaction. Returns the band id, or None when the row does not exist. The [`Point`] is
/// valid by construction (the table's CHECKs back it).
pub async fn set_manual_point(
    conn: &mut PgConnection,
    id: i64,
    point: Point,
) -> Result<Option<i64>> {
    let ma_id: Option<i64> = sqlx::query_scalar(
        "UPDATE band_locations SET lat = $2, lon = $3, geocode_status = 'done', step_order = $4,
             provider = 'manual', confidence = 1.0, geocode_granularity = 'manual',
             error = NULL, claimed_at = NULL, llm_lease = NULL
         WHERE id = $1 RETURNING ma_id",
    )
    .bind(id)
    .bind(point.lat())
    .bind(point.lon())
    .bind(MANUAL_STEP)
    .fetch_optional(&mut *conn)
    .await?;
    if let Some(ma_id) = ma_id {
        super::primary::sync_primary_point(conn, ma_id).await?;
    }
    Ok(ma_id)
}
