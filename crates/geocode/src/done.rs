//! Storing a result through the one lifecycle home (`bandmap_db::band_locations::done`):
//! the row becomes `done` (or `country_only` in a batch) and the band's primary point is
//! re-synchronised in the same transaction (rule 19).

use crate::{GeocodeError, Resolved};
use bandmap_db::band_locations::claim::GeocodeClaim;
use bandmap_db::band_locations::done::{self, DoneBy, DoneFields, Finished};
use sqlx::PgPool;

/// Marks row `row_id` `done` with `r` and re-syncs its band's primary point, in one
/// transaction. A manual override (`step_order = -1`) is never overwritten, and a row that
/// no longer exists (its band's location changed, rule 20) is skipped silently.
pub async fn mark_done(pool: &PgPool, row_id: i64, r: &Resolved) -> Result<(), GeocodeError> {
    write_done(pool, DoneBy::Unclaimed(row_id), &r.clone().into())
        .await
        .map(|_| ())
}

/// The columns a `done` row stores for an accepted result.
impl From<Resolved> for DoneFields {
    fn from(r: Resolved) -> Self {
        DoneFields {
            lat: r.lat,
            lon: r.lon,
            provider: r.provider,
            confidence: Some(r.confidence),
            granularity: Some(r.granularity),
            query: Some(r.query),
        }
    }
}

/// Writes `done` for the worker's claim with the given columns (the dedup path copies a
/// twin's columns as they are). Returns whether the row was written.
pub(crate) async fn finish_fields(
    pool: &PgPool,
    claim: &GeocodeClaim,
    fields: &DoneFields,
) -> Result<bool, GeocodeError> {
    write_done(pool, DoneBy::Geocoder(claim), fields).await
}

async fn write_done(
    pool: &PgPool,
    by: DoneBy<'_>,
    fields: &DoneFields,
) -> Result<bool, GeocodeError> {
    let written = done::mark_done(pool, by, fields).await?.is_some();
    if !written {
        tracing::info!(?by, "row not marked done: gone, overridden or re-claimed");
    }
    Ok(written)
}

/// Writes many claimed rows (`done` or `country_only`, each guarded by its claim) and
/// re-syncs the primary points of their bands, all in one transaction: two statements for
/// the whole batch instead of two per row. Returns the ids written; a row repaired and
/// re-claimed elsewhere meanwhile is skipped.
pub(crate) async fn finish_many(
    pool: &PgPool,
    rows: &[Finished],
) -> Result<Vec<i64>, GeocodeError> {
    let written = done::finish_batch(pool, rows).await?;
    if written.len() < rows.len() {
        tracing::info!(
            skipped = rows.len() - written.len(),
            "rows not finished: gone or re-claimed"
        );
    }
    Ok(written.into_iter().map(|(id, _)| id).collect())
}
