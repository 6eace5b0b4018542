//! band_locations queries of the admin API: the filtered list, manual coordinates, and the
//! one meaning of "re-queue" shared with the geocoder (STYLE habit 4).
//!
//! Re-queueing a row puts it back to `pending` with `attempts` 0, no `error`, no claim and
//! `next_attempt_at = now()`. It also abandons a manual override: `step_order` returns to
//! the parser's `parsed_step`, since the row is now the pipeline's again. Rows leaving
//! `done`/`country_only` no longer carry their band's primary point, so every re-queue
//! re-synchronises the primary points of the bands it touched, in the same transaction.

use crate::Result;
use chrono::{DateTime, Utc};
use sqlx::{PgConnection, PgPool};

/// Every `geocode_status` value (CONTRACT §3), in pipeline order.
pub const STATUSES: [&str; 7] = [
    "pending",
    "processing",
    "done",
    "country_only",
    "llm_needed",
    "manual",
    "error",
];

/// Filters of the admin list. `None` = no filter.
#[derive(Debug, Clone, Default)]
pub struct LocationFilter {
    /// Exact status (one of [`STATUSES`]).
    pub status: Option<String>,
    /// ILIKE pattern (already escaped) on `location_raw`.
    pub place: Option<String>,
    /// ILIKE pattern (already escaped) on the band name.
    pub band: Option<String>,
    /// Exact band id, OR-ed with `band` (the text was numeric).
    pub band_id: Option<i64>,
    /// Country name or ISO code, case-insensitive.
    pub country: Option<String>,
}

/// One row of the admin list (CONTRACT §6 item).
#[derive(Debug, Clone, PartialEq, serde::Serialize, sqlx::FromRow)]
pub struct LocationRow {
    /// Row id.
    pub id: i64,
    /// Band id.
    pub ma_id: i64,
    /// Band name.
    pub band_name: String,
    /// Display order (-1 = manual override).
    pub step_order: i32,
    /// Label of the step.
    pub step_label: Option<String>,
    /// Raw place.
    pub location_raw: String,
    /// Country name.
    pub country: Option<String>,
    /// `geocode_status`.
    pub status: String,
    /// Attempts so far.
    pub attempts: i32,
    /// Last real error.
    pub error: Option<String>,
    /// Provider of the result.
    pub provider: Option<String>,
    /// Confidence of the result.
    pub confidence: Option<f64>,
    /// Granularity of the result.
    pub granularity: Option<String>,
    /// Latitude.
    pub lat: Option<f64>,
    /// Longitude.
    pub lon: Option<f64>,
    /// Query sent to the provider.
    pub query: Option<String>,
    /// Last change.
    pub updated_at: DateTime<Utc>,
}

const SELECT_ROW: &str = "SELECT l.id, l.ma_id, b.name AS band_name, l.step_order, l.step_label,
        l.location_raw, l.country, l.geocode_status AS status, l.attempts, l.error, l.provider,
        CASE WHEN l.confidence IN ('NaN', 'Infinity', '-Infinity') THEN NULL ELSE l.confidence END
            AS confidence,
        l.geocode_granularity AS granularity, l.lat, l.lon, l.query, l.updated_at
    FROM band_locations l JOIN bands b ON b.ma_id = l.ma_id";

// The filter predicate, shared by the page and its count ($1..$5).
macro_rules! filter_sql {
    () => {
        " WHERE ($1::text IS NULL OR l.geocode_status = $1)
            AND ($2::text IS NULL OR l.location_raw ILIKE $2 ESCAPE '\\')
            AND (($3::text IS NULL AND $4::bigint IS NULL)
                 OR b.name ILIKE $3 ESCAPE '\\' OR l.ma_id = $4)
            AND ($5::text IS NULL OR lower(l.country) = lower($5)
                 OR lower(l.country_code) = lower($5))"
    };
}

/// One page of rows matching `filter`, grouped by band and step, and the total count.
pub async fn list(
    pool: &PgPool,
    filter: &LocationFilter,
    limit: i64,
    offset: i64,
) -> Result<(Vec<LocationRow>, i64)> {
    let total: i64 = sqlx::query_scalar(concat!(
        "SELECT count(*) FROM band_locations l JOIN bands b ON b.ma_id = l.ma_id",
        filter_sql!()
    ))
    .bind(&filter.status)
    .bind(&filter.place)
    .bind(&filter.band)
    .bind(filter.band_id)
    .bind(&filter.country)
    .fetch_one(pool)
    .await?;
    let sql = format!(
        "{SELECT_ROW}{} ORDER BY l.ma_id, l.step_order, l.id LIMIT $6 OFFSET $7",
        filter_sql!()
    );
    let rows = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(&filter.status)
        .bind(&filter.place)
        .bind(&filter.band)
        .bind(filter.band_id)
        .bind(&filter.country)
        .bind(limit)
        .bind(offset)
        .fetch_all(pool)
        .await?;
    Ok((rows, total))
}

/// One row by id, locked for the caller's transaction.
pub async fn get_for_update(conn: &mut PgConnection, id: i64) -> Result<Option<LocationRow>> {
    let sql = format!("{SELECT_ROW} WHERE l.id = $1 FOR UPDATE OF l");
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(id)
        .fetch_optional(conn)
        .await?)
}

/// One row by id.
pub async fn get(conn: &mut PgConnection, id: i64) -> Result<Option<LocationRow>> {
    let sql = format!("{SELECT_ROW} WHERE l.id = $1");
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(id)
        .fetch_optional(conn)
        .await?)
}

/// Manual coordinates (SPEC "PATCH /admin/api/locations/:id"): status `done`, `step_order`
/// -1, provider `manual`, confidence 1, error cleared, and the band's primary point
/// re-synchronised — all on the caller's transaction. Returns the band id, or None when
/// the row does not exist. Bounds are the caller's job (the table's CHECKs back them).
pub async fn set_manual_point(
    conn: &mut PgConnection,
    id: i64,
    lat: f64,
    lon: f64,
) -> Result<Option<i64>> {
    let ma_id: Option<i64> = sqlx::query_scalar(
        "UPDATE band_locations SET lat = $2, lon = $3, geocode_status = 'done', step_order = -1,
             provider = 'manual', confidence = 1.0, geocode_granularity = 'manual',
             error = NULL, claimed_at = NULL
         WHERE id = $1 RETURNING ma_id",
    )
    .bind(id)
    .bind(lat)
    .bind(lon)
    .fetch_optional(&mut *conn)
    .await?;
    if let Some(ma_id) = ma_id {
        super::primary::sync_primary_point(conn, ma_id).await?;
    }
    Ok(ma_id)
}

/// Re-queues one row (see the module header). Returns false when it does not exist.
pub async fn requeue_one(conn: &mut PgConnection, id: i64) -> Result<bool> {
    let ma_id: Option<i64> = sqlx::query_scalar(
        "UPDATE band_locations SET geocode_status = 'pending', attempts = 0, error = NULL,
             next_attempt_at = now(), claimed_at = NULL, step_order = parsed_step
         WHERE id = $1 RETURNING ma_id",
    )
    .bind(id)
    .fetch_optional(&mut *conn)
    .await?;
    match ma_id {
        Some(ma_id) => {
            super::primary::sync_primary_point(conn, ma_id).await?;
            Ok(true)
        }
        None => Ok(false),
    }
}

/// The four bulk actions of the admin API; each moves exactly the statuses it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bulk {
    /// `error` and `processing` → `pending`.
    ResetErrors,
    /// `llm_needed` and `manual` → `pending`.
    ResetLlm,
    /// Every row → `pending`, coordinates kept.
    RequeueAll,
    /// Every row → `pending`, coordinates, provider, confidence and granularity cleared.
    ResetAll,
}

impl Bulk {
    /// The statuses this action moves.
    pub fn statuses(self) -> &'static [&'static str] {
        match self {
            Bulk::ResetErrors => &["error", "processing"],
            Bulk::ResetLlm => &["llm_needed", "manual"],
            Bulk::RequeueAll | Bulk::ResetAll => &STATUSES,
        }
    }

    /// Name used in the audit log.
    pub fn action(self) -> &'static str {
        match self {
            Bulk::ResetErrors => "locations.reset_errors",
            Bulk::ResetLlm => "locations.reset_llm",
            Bulk::RequeueAll => "locations.requeue_all",
            Bulk::ResetAll => "locations.reset_all",
        }
    }

    fn clears_result(self) -> bool {
        self == Bulk::ResetAll
    }
}

/// Runs a bulk re-queue on the caller's transaction and returns how many rows it moved
/// from each status (the audit's "before"). The primary points of the bands whose rows
/// left `done`/`country_only` are re-synchronised set-wise
/// ([`super::primary::sync_primary_points`]).
pub async fn bulk_requeue(
    conn: &mut PgConnection,
    action: Bulk,
) -> Result<std::collections::BTreeMap<String, u64>> {
    let moved: Vec<(i64, String)> = sqlx::query_as(
        "WITH target AS (
             SELECT id, geocode_status AS was
             FROM band_locations WHERE geocode_status = ANY($1) ORDER BY id FOR UPDATE
         )
         UPDATE band_locations l SET geocode_status = 'pending', attempts = 0, error = NULL,
             next_attempt_at = now(), claimed_at = NULL, step_order = l.parsed_step,
             lat = CASE WHEN $2 THEN NULL ELSE l.lat END,
             lon = CASE WHEN $2 THEN NULL ELSE l.lon END,
             provider = CASE WHEN $2 THEN NULL ELSE l.provider END,
             confidence = CASE WHEN $2 THEN NULL ELSE l.confidence END,
             geocode_granularity = CASE WHEN $2 THEN NULL ELSE l.geocode_granularity END
         FROM target t WHERE l.id = t.id
         RETURNING l.ma_id, t.was",
    )
    .bind(action.statuses())
    .bind(action.clears_result())
    .fetch_all(&mut *conn)
    .await?;
    let mut by_status = std::collections::BTreeMap::new();
    for (_, was) in &moved {
        *by_status.entry(was.clone()).or_insert(0u64) += 1;
    }
    let mut bands: Vec<i64> = moved
        .iter()
        .filter(|(_, was)| matches!(was.as_str(), "done" | "country_only"))
        .map(|(b, _)| *b)
        .collect();
    bands.sort_unstable();
    bands.dedup();
    if !bands.is_empty() {
        super::primary::sync_primary_points(conn, &bands).await?;
    }
    Ok(by_status)
}
