//! The geocoder's claim: due `pending` rows → `processing` (`FOR UPDATE SKIP LOCKED`), each
//! with its rule-17 dedup twin looked up in the same statement.
//!
//! A claim is identified by `(id, claimed_at)`, held as a [`GeocodeClaim`] that only this
//! module makes: the geocoder's exits take one, so they cannot be called on a row nobody
//! claimed, and they only touch the row while it is still `processing` under that claim
//! (a row repaired and re-claimed by another worker is never overwritten by the first one).

use super::done::DoneFields;
use super::kind::{KindColumns, LocationKind};
use crate::Result;
use chrono::{DateTime, Utc};

/// Proof of a geocoder claim: the row id and its `claimed_at` token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, sqlx::FromRow)]
pub struct GeocodeClaim {
    id: i64,
    claimed_at: DateTime<Utc>,
}

impl GeocodeClaim {
    /// The row id.
    #[must_use]
    pub fn id(&self) -> i64 {
        self.id
    }

    /// The claim token.
    #[must_use]
    pub fn claimed_at(&self) -> DateTime<Utc> {
        self.claimed_at
    }
}

/// A claimed row, now `processing`.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Claimed {
    /// Row id.
    pub id: i64,
    /// Band.
    pub ma_id: i64,
    /// Display order ([`super::kind::MANUAL_STEP`] for an admin's override).
    pub step_order: i32,
    /// Place as parsed (`Bergen, Vestland`).
    pub location_raw: String,
    /// City part, when the enqueue stored it.
    pub city: Option<String>,
    /// Region parts, most specific first.
    pub regions: Vec<String>,
    /// Country name.
    pub country: Option<String>,
    /// ISO alpha-2 code.
    pub country_code: Option<String>,
    /// Attempts before this one.
    pub attempts: i32,
    /// The claim token.
    pub claimed_at: DateTime<Utc>,
    /// The claim, for the exits.
    #[sqlx(flatten)]
    claim: GeocodeClaim,
    /// A `done` row with the same `(lower(location_raw), country)` (rule 17), if any.
    #[sqlx(flatten)]
    pub twin: TwinColumns,
}

/// The dedup twin's result columns (all NULL when there is none).
#[derive(Debug, Clone, Default, sqlx::FromRow)]
pub struct TwinColumns {
    /// Twin row id.
    pub twin_id: Option<i64>,
    /// Its latitude.
    pub twin_lat: Option<f64>,
    /// Its longitude.
    pub twin_lon: Option<f64>,
    /// Its provider.
    pub twin_provider: Option<String>,
    /// Its confidence.
    pub twin_confidence: Option<f64>,
    /// Its granularity.
    pub twin_granularity: Option<String>,
    /// Its query.
    pub twin_query: Option<String>,
}

impl Claimed {
    /// The claim the exits take.
    #[must_use]
    pub fn claim(&self) -> GeocodeClaim {
        self.claim
    }

    /// What the row stands for (a requeued `country_only` row is [`LocationKind::CountryOnly`]
    /// again: the kind is derived from columns no transition changes).
    #[must_use]
    pub fn kind(&self) -> LocationKind {
        LocationKind::of(KindColumns {
            step_order: self.step_order,
            location_raw: &self.location_raw,
            city: self.city.as_deref(),
            regions: &self.regions,
            country_code: self.country_code.as_deref(),
        })
    }

    /// The twin's result, when a `done` twin with coordinates exists.
    #[must_use]
    pub fn twin(&self) -> Option<DoneFields> {
        let t = &self.twin;
        Some(DoneFields {
            lat: t.twin_lat?,
            lon: t.twin_lon?,
            provider: t.twin_provider.clone().unwrap_or_default(),
            confidence: t.twin_confidence,
            granularity: t.twin_granularity.clone(),
            query: t.twin_query.clone(),
        })
    }
}

/// Claims the next due `pending` row (oldest `next_attempt_at` first) → `processing`.
///
/// The claim and the `done` write commit with `synchronous_commit = off` (transaction-local):
/// they do not wait for the WAL flush, which otherwise is the worker's main cost. Safe here
/// because both are recomputable: a database crash can only lose the last fraction of a
/// second of them, leaving those rows `pending` or `processing` (then self-repaired) to be
/// geocoded again — never a wrong or half-written row.
pub async fn claim(conn: impl sqlx::PgExecutor<'_>) -> Result<Option<Claimed>> {
    Ok(claim_batch(conn, 1).await?.pop())
}

/// Claims up to `limit` due `pending` rows in one statement (oldest `next_attempt_at`
/// first, `FOR UPDATE SKIP LOCKED`, so concurrent claimers never share a row), each with
/// its rule-17 twin. All rows of one claim share one `claimed_at` (the statement's
/// `now()`); the token stays `(id, claimed_at)`. Returned in claim order.
///
/// The twin is read through `band_locations_twin` (migration 023), whose key
/// `(lower(location_raw), coalesce(country, ''), id)` hands the lowest id of a place at
/// once; the `coalesce` condition only lets the planner use that key, the
/// `IS NOT DISTINCT FROM` keeps NULL and '' apart.
pub async fn claim_batch(conn: impl sqlx::PgExecutor<'_>, limit: i64) -> Result<Vec<Claimed>> {
    Ok(sqlx::query_as(
        "WITH c AS (
             UPDATE band_locations SET geocode_status = 'processing', claimed_at = now()
             WHERE id IN (SELECT id FROM band_locations
                          WHERE geocode_status = 'pending' AND next_attempt_at <= now()
                          ORDER BY next_attempt_at, id
                          LIMIT $1 FOR UPDATE SKIP LOCKED)
             RETURNING id, ma_id, step_order, location_raw, city, regions, country,
                       country_code, attempts, claimed_at, next_attempt_at
         )
         SELECT c.*, sc.relaxed, t.id AS twin_id, t.lat AS twin_lat, t.lon AS twin_lon,
                t.provider AS twin_provider, t.confidence AS twin_confidence,
                t.geocode_granularity AS twin_granularity, t.query AS twin_query
         FROM c CROSS JOIN (SELECT set_config('synchronous_commit', 'off', true) AS relaxed) sc
         LEFT JOIN LATERAL (
             SELECT d.id, d.lat, d.lon, d.provider, d.confidence, d.geocode_granularity, d.query
             FROM band_locations d
             WHERE d.geocode_status = 'done'
               AND lower(d.location_raw) = lower(c.location_raw)
               AND coalesce(d.country, '') = coalesce(c.country, '')
               AND d.country IS NOT DISTINCT FROM c.country
               AND d.lat IS NOT NULL AND d.lon IS NOT NULL AND d.id <> c.id
             ORDER BY d.id LIMIT 1
         ) t ON TRUE
         ORDER BY c.next_attempt_at, c.id",
    )
    .bind(limit.max(1))
    .fetch_all(conn)
    .await?)
}
