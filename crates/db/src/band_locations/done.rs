//! The one way a row becomes located: `done` ([`mark_done`], one row, any writer) or
//! `done`/`country_only` for a batch of geocoder claims ([`finish_batch`]). Both re-sync the
//! band's primary point (rule 19) in the same transaction, so the point never lags.
//!
//! Both commit with `synchronous_commit = off` (see [`super::claim::claim`]): a result lost
//! to a database crash is recomputed (geocoder rows are re-claimed, LLM extractions cached).

use super::claim::GeocodeClaim;
use super::llm::LlmLease;
use super::primary::{sync_primary_point, sync_primary_points};
use super::status::GeocodeStatus;
use crate::Result;
use chrono::{DateTime, Utc};
use sqlx::{Acquire, Postgres};

/// What a `done` row stores.
#[derive(Debug, Clone, PartialEq)]
pub struct DoneFields {
    /// Latitude.
    pub lat: f64,
    /// Longitude.
    pub lon: f64,
    /// Provider (`gazetteer`, `geoapify`, `llm+geoapify`, …).
    pub provider: String,
    /// Confidence.
    pub confidence: Option<f64>,
    /// Granularity (`city`, …).
    pub granularity: Option<String>,
    /// Query sent (or what the gazetteer matched).
    pub query: Option<String>,
}

/// Who writes a `done` row, and so which state the row must still be in. An admin's
/// override (`step_order = -1`) is never written by any of them.
#[derive(Debug, Clone, Copy)]
pub enum DoneBy<'a> {
    /// The geocoder, while the row is still `processing` under this claim.
    Geocoder(&'a GeocodeClaim),
    /// The LLM worker, while the row is still `llm_needed`.
    Llm(&'a LlmLease),
    /// Any writer of an accepted result, whatever the row's status
    /// (`bandmap_geocode::mark_done`).
    Unclaimed(i64),
}

impl DoneBy<'_> {
    fn id(self) -> i64 {
        match self {
            DoneBy::Geocoder(c) => c.id(),
            DoneBy::Llm(l) => l.id(),
            DoneBy::Unclaimed(id) => id,
        }
    }

    /// The status the row must still have, and the claim token it must still carry (the
    /// geocoder's `claimed_at`, the LLM worker's `llm_lease`).
    fn guard(self) -> (Option<GeocodeStatus>, Option<DateTime<Utc>>, Option<i64>) {
        match self {
            DoneBy::Geocoder(c) => (Some(GeocodeStatus::Processing), Some(c.claimed_at()), None),
            DoneBy::Llm(l) => (Some(GeocodeStatus::LlmNeeded), None, Some(l.token())),
            DoneBy::Unclaimed(_) => (None, None, None),
        }
    }
}

/// Writes a `done` result and re-syncs the band's primary point, in one transaction (a
/// savepoint when `conn` is already in one). Returns the band id when the row was written;
/// `None` when it is gone, overridden, or no longer in the state `by` requires.
pub async fn mark_done<'c>(
    conn: impl Acquire<'c, Database = Postgres>,
    by: DoneBy<'_>,
    f: &DoneFields,
) -> Result<Option<i64>> {
    let (status, claim, lease) = by.guard();
    let mut tx = conn.begin().await?;
    let ma_id: Option<i64> = sqlx::query_scalar(
        "UPDATE band_locations SET
             geocode_status = 'done', lat = $4, lon = $5, provider = $6, confidence = $7,
             geocode_granularity = $8, query = $9, error = NULL, claimed_at = NULL,
             wait_count = 0, llm_lease = NULL
         FROM (SELECT set_config('synchronous_commit', 'off', true)) AS relaxed
         WHERE id = $1 AND step_order <> -1
           AND ($2::text IS NULL OR geocode_status = $2)
           AND ($3::timestamptz IS NULL OR claimed_at = $3)
           AND ($10::bigint IS NULL OR llm_lease = $10)
         RETURNING ma_id",
    )
    .bind(by.id())
    .bind(status)
    .bind(claim)
    .bind(f.lat)
    .bind(f.lon)
    .bind(&f.provider)
    .bind(f.confidence)
    .bind(&f.granularity)
    .bind(&f.query)
    .bind(lease)
    .fetch_optional(&mut *tx)
    .await?;
    if let Some(ma_id) = ma_id {
        sync_primary_point(&mut tx, ma_id).await?;
    }
    tx.commit().await?;
    Ok(ma_id)
}

/// The state a finished row is written with by [`finish_batch`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finish {
    /// `done` (a resolved place).
    Done,
    /// `country_only`: the row names no place and gets its country's centroid (CONTRACT §3).
    CountryOnly,
}

impl Finish {
    /// The status written.
    #[must_use]
    pub fn status(self) -> GeocodeStatus {
        match self {
            Finish::Done => GeocodeStatus::Done,
            Finish::CountryOnly => GeocodeStatus::CountryOnly,
        }
    }
}

/// One row of [`finish_batch`].
#[derive(Debug, Clone, PartialEq)]
pub struct Finished {
    /// The row's claim.
    pub claim: GeocodeClaim,
    /// `done` or `country_only`.
    pub status: Finish,
    /// The columns written.
    pub fields: DoneFields,
}

/// Writes many claimed rows in one statement (`UNNEST` arrays), each only while it is
/// still `processing` under its own claim (a row repaired and re-claimed by someone else
/// is skipped), and re-syncs their bands' primary points, in one transaction (a savepoint
/// when `conn` is already in one). Returns `(id, ma_id)` of the rows written.
pub async fn finish_batch<'c>(
    conn: impl Acquire<'c, Database = Postgres>,
    rows: &[Finished],
) -> Result<Vec<(i64, i64)>> {
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    let mut tx = conn.begin().await?;
    let written = update_batch(&mut tx, rows).await?;
    let mut bands: Vec<i64> = written.iter().map(|&(_, ma_id)| ma_id).collect();
    bands.sort_unstable();
    bands.dedup();
    sync_primary_points(&mut tx, &bands).await?;
    tx.commit().await?;
    Ok(written)
}

async fn update_batch(conn: &mut sqlx::PgConnection, rows: &[Finished]) -> Result<Vec<(i64, i64)>> {
    let ids: Vec<i64> = rows.iter().map(|r| r.claim.id()).collect();
    let claims: Vec<DateTime<Utc>> = rows.iter().map(|r| r.claim.claimed_at()).collect();
    let statuses: Vec<GeocodeStatus> = rows.iter().map(|r| r.status.status()).collect();
    let lats: Vec<f64> = rows.iter().map(|r| r.fields.lat).collect();
    let lons: Vec<f64> = rows.iter().map(|r| r.fields.lon).collect();
    let providers: Vec<&str> = rows.iter().map(|r| r.fields.provider.as_str()).collect();
    let confidences: Vec<Option<f64>> = rows.iter().map(|r| r.fields.confidence).collect();
    let granularities: Vec<Option<&str>> = rows
        .iter()
        .map(|r| r.fields.granularity.as_deref())
        .collect();
    let queries: Vec<Option<&str>> = rows.iter().map(|r| r.fields.query.as_deref()).collect();
    // Lock the rows in id order first, the order the admin bulk actions lock in: the
    // UPDATE below may lock them in any order (claim order, or the join's), and two
    // transactions locking shared rows in opposite orders deadlock (schemathesis hit it:
    // `reset-all` beside a running batch).
    sqlx::query("SELECT 1 FROM band_locations WHERE id = ANY($1) ORDER BY id FOR UPDATE")
        .bind(&ids)
        .execute(&mut *conn)
        .await?;
    Ok(sqlx::query_as(
        "UPDATE band_locations b SET
             geocode_status = f.status, lat = f.lat, lon = f.lon, provider = f.provider,
             confidence = f.confidence, geocode_granularity = f.granularity, query = f.query,
             error = NULL, claimed_at = NULL, wait_count = 0
         FROM UNNEST($1::bigint[], $2::timestamptz[], $3::text[], $4::float8[], $5::float8[],
                     $6::text[], $7::float8[], $8::text[], $9::text[])
                  AS f(id, claimed_at, status, lat, lon, provider, confidence, granularity, query)
              CROSS JOIN (SELECT set_config('synchronous_commit', 'off', true)) AS relaxed
         WHERE b.id = f.id AND b.geocode_status = 'processing' AND b.claimed_at = f.claimed_at
         RETURNING b.id, b.ma_id",
    )
    .bind(&ids)
    .bind(&claims)
    .bind(&statuses)
    .bind(&lats)
    .bind(&lons)
    .bind(&providers)
    .bind(&confidences)
    .bind(&granularities)
    .bind(&queries)
    .fetch_all(conn)
    .await?)
}
