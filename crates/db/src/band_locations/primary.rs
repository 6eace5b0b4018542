//! The band's denormalised primary point (rule 19): the point of its origin step
//! (`parsed_step = 0`), or none. Among the origin step's located rows it is chosen by
//! `step_order` ascending then `id` ascending, so an admin's override of an origin row
//! (`step_order = -1`) wins over the other origin rows. A later step's row never gives the
//! point, not even while step 0 is unlocated nor when an admin corrected it by hand
//! (issue 19 point 3). It is never "the latest location".

use crate::Result;
use sqlx::PgConnection;

/// Recomputes `bands.lat/lon/geom` and the `geocode_*` columns of one band from its rows.
/// Call it inside the transaction that changed a row, so the point never lags.
pub async fn sync_primary_point(conn: &mut PgConnection, ma_id: i64) -> Result<()> {
    sqlx::query(
        "WITH origin AS (
             SELECT id, lat, lon, geocode_status, provider, confidence
             FROM band_locations
             WHERE ma_id = $1 AND parsed_step = 0 AND lat IS NOT NULL AND lon IS NOT NULL
               AND geocode_status IN ('done', 'country_only')
             ORDER BY step_order ASC, id ASC
             LIMIT 1
         )
         UPDATE bands b SET
             lat = o.lat, lon = o.lon,
             geocode_status = o.geocode_status, geocode_provider = o.provider,
             geocode_confidence = o.confidence, geocode_location_id = o.id,
             geocode_updated_at = now()
         FROM (SELECT 1) AS one LEFT JOIN origin o ON TRUE
         WHERE b.ma_id = $1
           AND (b.lat, b.lon, b.geocode_location_id, b.geocode_status)
               IS DISTINCT FROM (o.lat, o.lon, o.id, o.geocode_status)",
    )
    .bind(ma_id)
    .execute(conn)
    .await?;
    Ok(())
}

/// [`sync_primary_point`] for many bands in one statement (same rule-19 choice: per band,
/// among the origin step's located `done`/`country_only` rows, `step_order` ascending then
/// `id` ascending). A band with no such row has its point cleared. Returns how many bands changed.
///
/// Each band's row is looked up on its own (`LATERAL … LIMIT 1` on `band_locations_ma_id`,
/// whose key is the choice's order), so the cost is a few index pages a band whatever the
/// table holds. The earlier form filtered `ma_id = ANY($1)` over the whole table, and with
/// statistics taken before the pipeline ran (no `done` row yet) the planner walked every
/// `done` row for each batch: quadratic in the table (issue 13, docs/performance.md).
pub async fn sync_primary_points(conn: &mut PgConnection, ma_ids: &[i64]) -> Result<u64> {
    if ma_ids.is_empty() {
        return Ok(0);
    }
    let changed = sqlx::query(
        "WITH targets AS (
             SELECT DISTINCT t.ma_id FROM UNNEST($1::bigint[]) AS t(ma_id)
         )
         UPDATE bands b SET
             lat = o.lat, lon = o.lon,
             geocode_status = o.geocode_status, geocode_provider = o.provider,
             geocode_confidence = o.confidence, geocode_location_id = o.id,
             geocode_updated_at = now()
         FROM targets t LEFT JOIN LATERAL (
             SELECT l.id, l.lat, l.lon, l.geocode_status, l.provider, l.confidence
             FROM band_locations l
             WHERE l.ma_id = t.ma_id AND l.parsed_step = 0
               AND l.lat IS NOT NULL AND l.lon IS NOT NULL
               AND l.geocode_status IN ('done', 'country_only')
             ORDER BY l.step_order ASC, l.id ASC
             LIMIT 1
         ) o ON TRUE
         WHERE b.ma_id = t.ma_id
           AND (b.lat, b.lon, b.geocode_location_id, b.geocode_status)
               IS DISTINCT FROM (o.lat, o.lon, o.id, o.geocode_status)",
    )
    .bind(ma_ids)
    .execute(conn)
    .await?
    .rows_affected();
    Ok(changed)
}
