//! Storing an accepted result: the row becomes `done` and the band's primary point is
//! re-synchronised in the same transaction (rule 19, `sync_primary_point`).

use crate::{GeocodeError, Resolved};
use bandmap_db::band_locations::geocoding::{self, DoneFields, Finished};
use bandmap_db::band_locations::primary::{sync_primary_point, sync_primary_points};
use chrono::{DateTime, Utc};
use sqlx::PgPool;

/// Marks row `row_id` `done` with `r` and re-syncs its band's primary point, in one
/// transaction. A manual override (`step_order = -1`) is never overwritten, and a row that
/// no longer exists (its band's location changed, rule 20) is skipped silently.
pub async fn mark_done(pool: &PgPool, row_id: i64, r: &Resolved) -> Result<(), GeocodeError> {
    finish_done(pool, row_id, None, r).await.map(|_| ())
}

/// Shared by [`mark_done`] and the worker (which passes its claim token). Returns whether
/// the row was written.
pub(crate) async fn finish_done(
    pool: &PgPool,
    row_id: i64,
    claim: Option<DateTime<Utc>>,
    r: &Resolved,
) -> Result<bool, GeocodeError> {
    finish_fields(pool, row_id, claim, &done_fields(r.clone())).await
}

/// The columns a `done` row stores for an accepted result.
pub(crate) fn done_fields(r: Resolved) -> DoneFields {
    DoneFields {
        lat: r.lat,
        lon: r.lon,
        provider: r.provider,
        confidence: Some(r.confidence),
        granularity: Some(r.granularity),
        query: Some(r.query),
    }
}

/// Writes `done` with the given columns (the dedup path copies a twin's columns as they are).
pub(crate) async fn finish_fields(
    pool: &PgPool,
    row_id: i64,
    claim: Option<DateTime<Utc>>,
    fields: &DoneFields,
) -> Result<bool, GeocodeError> {
    let mut tx = pool.begin().await?;
    let written = geocoding::mark_done(&mut tx, row_id, claim, fields).await?;
    if let Some(ma_id) = written {
        sync_primary_point(&mut tx, ma_id).await?;
    }
    tx.commit().await?;
    if written.is_none() {
        tracing::info!(
            row_id,
            "row not marked done: gone, overridden or re-claimed"
        );
    }
    Ok(written.is_some())
}

/// Writes many claimed rows (`done` or `country_only`, each guarded by its claim) and
/// re-syncs the primary points of their bands, all in one transaction: two statements for
/// the whole batch instead of two per row. Returns the ids written; a row repaired and
/// re-claimed elsewhere meanwhile is skipped.
pub(crate) async fn finish_many(
    pool: &PgPool,
    rows: &[Finished],
) -> Result<Vec<i64>, GeocodeError> {
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    let mut tx = pool.begin().await?;
    let written = geocoding::finish_batch(&mut tx, rows).await?;
    let mut bands: Vec<i64> = written.iter().map(|&(_, ma_id)| ma_id).collect();
    bands.sort_unstable();
    bands.dedup();
    sync_primary_points(&mut tx, &bands).await?;
    tx.commit().await?;
    if written.len() < rows.len() {
        tracing::info!(
            skipped = rows.len() - written.len(),
            "rows not finished: gone or re-claimed"
        );
    }
    Ok(written.into_iter().map(|(id, _)| id).collect())
}
