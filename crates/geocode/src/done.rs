//! Storing an accepted result: the row becomes `done` and the band's primary point is
//! re-synchronised in the same transaction (rule 19, `sync_primary_point`).

use crate::{GeocodeError, Resolved};
use bandmap_db::band_locations::geocoding::{self, DoneFields};
use bandmap_db::band_locations::primary::sync_primary_point;
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
    let fields = DoneFields {
        lat: r.lat,
        lon: r.lon,
        provider: r.provider.clone(),
        confidence: Some(r.confidence),
        granularity: Some(r.granularity.clone()),
        query: Some(r.query.clone()),
    };
    finish_fields(pool, row_id, claim, &fields).await
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
