//! band_locations queries of the geocoding worker: the claim (`FOR UPDATE SKIP LOCKED`,
//! with the rule-17 dedup twin looked up in the same statement), and every exit of a
//! claimed row: `done`, retry with backoff (CONTRACT §11), `llm_needed` (rule 18), `error`,
//! waiting without consuming an attempt, and the self-repair of rows stuck in `processing`.
//!
//! A claim is identified by `(id, claimed_at)`: the worker's own exits only touch the row
//! while it is still `processing` under that claim, so a row repaired and re-claimed by
//! another worker is never overwritten by the first one.

use crate::Result;
use chrono::{DateTime, Utc};
use sqlx::{PgConnection, PgPool};
use std::time::Duration;

/// Failed attempts after which a row goes to the LLM worker (rule 18).
pub const MAX_ATTEMPTS: i32 = 3;

/// A claimed row, now `processing`.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Claimed {
    /// Row id.
    pub id: i64,
    /// Band.
    pub ma_id: i64,
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
    /// The twin's result, when a `done` twin with coordinates exists.
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

/// Claims the next due `pending` row (oldest `next_attempt_at` first) → `processing`.
///
/// The claim and the `done` write commit with `synchronous_commit = off` (transaction-local):
/// they do not wait for the WAL flush, which otherwise is the worker's main cost. Safe here
/// because both are recomputable: a database crash can only lose the last fraction of a
/// second of them, leaving those rows `pending` or `processing` (then self-repaired) to be
/// geocoded again — never a wrong or half-written row.
pub async fn claim(pool: &PgPool) -> Result<Option<Claimed>> {
    Ok(claim_batch(pool, 1).await?.pop())
}

/// Claims up to `limit` due `pending` rows in one statement (oldest `next_attempt_at`
/// first, `FOR UPDATE SKIP LOCKED`, so concurrent claimers never share a row), each with
/// its rule-17 twin. All rows of one claim share one `claimed_at` (the statement's
/// `now()`); the token stays `(id, claimed_at)`. Returned in claim order.
pub async fn claim_batch(pool: &PgPool, limit: i64) -> Result<Vec<Claimed>> {
    Ok(sqlx::query_as(
        "WITH c AS (
             UPDATE band_locations SET geocode_status = 'processing', claimed_at = now()
             WHERE id IN (SELECT id FROM band_locations
                          WHERE geocode_status = 'pending' AND next_attempt_at <= now()
                          ORDER BY next_attempt_at, id
                          LIMIT $1 FOR UPDATE SKIP LOCKED)
             RETURNING id, ma_id, location_raw, city, regions, country, country_code,
                       attempts, claimed_at, next_attempt_at
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
               AND d.country IS NOT DISTINCT FROM c.country
               AND d.lat IS NOT NULL AND d.lon IS NOT NULL AND d.id <> c.id
             ORDER BY d.id LIMIT 1
         ) t ON TRUE
         ORDER BY c.next_attempt_at, c.id",
    )
    .bind(limit.max(1))
    .fetch_all(pool)
    .await?)
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
    fn status(self) -> &'static str {
        match self {
            Finish::Done => "done",
            Finish::CountryOnly => "country_only",
        }
    }
}

/// One row of [`finish_batch`].
#[derive(Debug, Clone, PartialEq)]
pub struct Finished {
    /// Row id.
    pub id: i64,
    /// Its claim token.
    pub claimed_at: DateTime<Utc>,
    /// `done` or `country_only`.
    pub status: Finish,
    /// The columns written.
    pub fields: DoneFields,
}

/// Writes many claimed rows in one statement (`UNNEST` arrays), each only while it is
/// still `processing` under its own claim (a row repaired and re-claimed by someone else
/// is skipped). Returns `(id, ma_id)` of the rows written, for `sync_primary_points` in
/// the same transaction. Sets `synchronous_commit = off` for the caller's transaction.
pub async fn finish_batch(conn: &mut PgConnection, rows: &[Finished]) -> Result<Vec<(i64, i64)>> {
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
    let claims: Vec<DateTime<Utc>> = rows.iter().map(|r| r.claimed_at).collect();
    let statuses: Vec<&str> = rows.iter().map(|r| r.status.status()).collect();
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

/// Gives claimed rows back unprocessed: `pending`, due now, attempts and `error` unchanged
/// (only while still ours). Used when a batch runs out of its time budget.
pub async fn release(pool: &PgPool, claims: &[(i64, DateTime<Utc>)]) -> Result<u64> {
    if claims.is_empty() {
        return Ok(0);
    }
    let ids: Vec<i64> = claims.iter().map(|c| c.0).collect();
    let ats: Vec<DateTime<Utc>> = claims.iter().map(|c| c.1).collect();
    Ok(sqlx::query(
        "UPDATE band_locations b SET geocode_status = 'pending', claimed_at = NULL,
             next_attempt_at = now()
         FROM UNNEST($1::bigint[], $2::timestamptz[]) AS r(id, claimed_at)
         WHERE b.id = r.id AND b.geocode_status = 'processing' AND b.claimed_at = r.claimed_at",
    )
    .bind(&ids)
    .bind(&ats)
    .execute(pool)
    .await?
    .rows_affected())
}

/// Writes a `done` result. With `claim = Some(claimed_at)` only while the row is still
/// `processing` under that claim (the worker); with `None` (the LLM worker, via
/// `bandmap_geocode::mark_done`) any row except a manual override (`step_order = -1`).
/// Returns the band id when the row was written, for the primary-point sync.
/// Sets `synchronous_commit = off` for the caller's transaction (see [`claim`]).
pub async fn mark_done(
    conn: &mut PgConnection,
    id: i64,
    claim: Option<DateTime<Utc>>,
    f: &DoneFields,
) -> Result<Option<i64>> {
    Ok(sqlx::query_scalar(
        "UPDATE band_locations SET
             geocode_status = 'done', lat = $3, lon = $4, provider = $5, confidence = $6,
             geocode_granularity = $7, query = $8, error = NULL, claimed_at = NULL,
             wait_count = 0
         FROM (SELECT set_config('synchronous_commit', 'off', true)) AS relaxed
         WHERE id = $1
           AND CASE WHEN $2::timestamptz IS NULL THEN step_order <> -1
                    ELSE geocode_status = 'processing' AND claimed_at = $2 END
         RETURNING ma_id",
    )
    .bind(id)
    .bind(claim)
    .bind(f.lat)
    .bind(f.lon)
    .bind(&f.provider)
    .bind(f.confidence)
    .bind(&f.granularity)
    .bind(&f.query)
    .fetch_optional(conn)
    .await?)
}

/// Where a failed row went.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct FailedTo {
    /// `pending` (retry later) or `llm_needed`.
    pub geocode_status: String,
    /// Attempts after this one.
    pub attempts: i32,
}

/// A failed attempt (rule 18, CONTRACT §11): `attempts` + 1 and `error` = the real error;
/// `llm_needed` when `to_llm` (every fallback failed) or after [`MAX_ATTEMPTS`], otherwise
/// back to `pending`, not before `30 s × 2^(attempts−1)` (capped at 10 min).
pub async fn record_failure(
    pool: &PgPool,
    id: i64,
    claim: DateTime<Utc>,
    error: &str,
    to_llm: bool,
) -> Result<Option<FailedTo>> {
    Ok(sqlx::query_as(
        "UPDATE band_locations SET
             attempts = attempts + 1, error = $3, claimed_at = NULL, wait_count = 0,
             geocode_status = CASE WHEN $4 OR attempts + 1 >= $5 THEN 'llm_needed'
                                   ELSE 'pending' END,
             next_attempt_at = CASE WHEN $4 OR attempts + 1 >= $5 THEN now()
                                    ELSE now() + LEAST(interval '30 seconds' * power(2, attempts),
                                                       interval '10 minutes') END
         WHERE id = $1 AND geocode_status = 'processing' AND claimed_at = $2
         RETURNING geocode_status, attempts",
    )
    .bind(id)
    .bind(claim)
    .bind(error)
    .bind(to_llm)
    .bind(MAX_ATTEMPTS)
    .fetch_optional(pool)
    .await?)
}

/// A refusal retrying will not fix, or processing that raised: `error` with the message.
pub async fn mark_error(pool: &PgPool, id: i64, claim: DateTime<Utc>, error: &str) -> Result<bool> {
    Ok(sqlx::query(
        "UPDATE band_locations SET geocode_status = 'error', error = $3,
             attempts = attempts + 1, claimed_at = NULL, wait_count = 0
         WHERE id = $1 AND geocode_status = 'processing' AND claimed_at = $2",
    )
    .bind(id)
    .bind(claim)
    .bind(error)
    .execute(pool)
    .await?
    .rows_affected()
        == 1)
}

/// Nothing could decide the row now (no provider): back to `pending`, `attempts`
/// unchanged, `error` says why. The delay grows with each consecutive wait of the row
/// (`wait_count`): `first × 2^wait_count`, capped at `max`, so rows nobody can decide stop
/// being re-claimed every few minutes forever. Any other exit resets `wait_count`.
pub async fn wait(
    pool: &PgPool,
    id: i64,
    claim: DateTime<Utc>,
    reason: &str,
    first: Duration,
    max: Duration,
) -> Result<bool> {
    Ok(sqlx::query(
        "UPDATE band_locations SET geocode_status = 'pending', error = $3, claimed_at = NULL,
             next_attempt_at = now() + LEAST(make_interval(secs => $4) * power(2, LEAST(wait_count, 30)),
                                             make_interval(secs => $5)),
             wait_count = wait_count + 1
         WHERE id = $1 AND geocode_status = 'processing' AND claimed_at = $2",
    )
    .bind(id)
    .bind(claim)
    .bind(reason)
    .bind(first.as_secs_f64())
    .bind(max.as_secs_f64())
    .execute(pool)
    .await?
    .rows_affected()
        == 1)
}

/// Self-repair: rows `processing` for longer than `older_than` (their worker died) go back
/// to `pending`, due now, attempts unchanged. Returns how many.
pub async fn repair_stuck(pool: &PgPool, older_than: Duration) -> Result<u64> {
    Ok(sqlx::query(
        "UPDATE band_locations SET geocode_status = 'pending', claimed_at = NULL,
             next_attempt_at = now()
         WHERE geocode_status = 'processing'
           AND (claimed_at IS NULL OR claimed_at < now() - make_interval(secs => $1))",
    )
    .bind(older_than.as_secs_f64())
    .execute(pool)
    .await?
    .rows_affected())
}

/// Queue figures for the heartbeat's progress check.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Progress {
    /// Rows `pending` (due or waiting for their backoff).
    pub pending: i64,
    /// Last change of a row that left the queue (`done`, `llm_needed`, `error`, …).
    pub last_finished: Option<DateTime<Utc>>,
}

/// Reads [`Progress`].
pub async fn progress(pool: &PgPool) -> Result<Progress> {
    Ok(sqlx::query_as(
        "SELECT count(*) FILTER (WHERE geocode_status = 'pending') AS pending,
                max(updated_at) FILTER (WHERE geocode_status NOT IN ('pending', 'processing'))
                    AS last_finished
         FROM band_locations",
    )
    .fetch_one(pool)
    .await?)
}

/// Makes rows that wait for a provider (their `error` starts with `prefix`) due now; used
/// at start when a provider is configured.
pub async fn wake_waiting(pool: &PgPool, prefix: &str) -> Result<u64> {
    Ok(sqlx::query(
        "UPDATE band_locations SET next_attempt_at = now(), wait_count = 0
         WHERE geocode_status = 'pending' AND next_attempt_at > now()
           AND starts_with(error, $1)",
    )
    .bind(prefix)
    .execute(pool)
    .await?
    .rows_affected())
}
