//! band_locations reads of the admin API: the filtered list and one row. Its transitions
//! are [`super::manual_point`] and [`super::requeue`].

use super::status::GeocodeStatus;
use crate::Result;
use chrono::{DateTime, Utc};
use sqlx::PgConnection;

/// Every `geocode_status` name (CONTRACT §3), in pipeline order ([`GeocodeStatus::ALL`]).
pub const STATUSES: [&str; 7] = {
    let a = GeocodeStatus::ALL;
    [
        a[0].as_str(),
        a[1].as_str(),
        a[2].as_str(),
        a[3].as_str(),
        a[4].as_str(),
        a[5].as_str(),
        a[6].as_str(),
    ]
};

/// Filters of the admin list. `None` = no filter.
#[derive(Debug, Clone, Default)]
pub struct LocationFilter {
    /// Exact status.
    pub status: Option<GeocodeStatus>,
    /// ILIKE pattern (already escaped) on `location_raw`.
    pub place: Option<String>,
    /// ILIKE pattern (already escaped) on the band name.
    pub band: Option<String>,
    /// Exact band id, OR-ed with `band` (the text was numeric).
    pub band_id: Option<i64>,
    /// Country name or ISO code, case-insensitive.
    pub country: Option<String>,
}

// One item of the admin list (CONTRACT §6).
/// One `band_locations` row.
#[derive(Debug, Clone, PartialEq, serde::Serialize, sqlx::FromRow)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = LocationItem))]
pub struct LocationRow {
    /// Row id.
    pub id: i64,
    /// Band id.
    pub ma_id: i64,
    /// Band name.
    pub band_name: String,
    /// Display order; 0 is the origin, -1 a manual override.
    pub step_order: i32,
    /// Label of the step.
    pub step_label: Option<String>,
    /// Raw place.
    pub location_raw: String,
    /// Country name.
    pub country: Option<String>,
    /// `geocode_status`.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub status: GeocodeStatus,
    /// Attempts so far.
    pub attempts: i32,
    /// Last real error.
    pub error: Option<String>,
    /// Provider of the result (`manual` for admin coordinates).
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
pub async fn list<'c>(
    conn: impl sqlx::Acquire<'c, Database = sqlx::Postgres>,
    filter: &LocationFilter,
    limit: i64,
    offset: i64,
) -> Result<(Vec<LocationRow>, i64)> {
    let mut conn = conn.acquire().await?;
    let total: i64 = sqlx::query_scalar(concat!(
        "SELECT count(*) FROM band_locations l JOIN bands b ON b.ma_id = l.ma_id",
        filter_sql!()
    ))
    .bind(filter.status)
    .bind(&filter.place)
    .bind(&filter.band)
    .bind(filter.band_id)
    .bind(&filter.country)
    .fetch_one(&mut *conn)
    .await?;
    let sql = format!(
        "{SELECT_ROW}{} ORDER BY l.ma_id, l.step_order, l.id LIMIT $6 OFFSET $7",
        filter_sql!()
    );
    let rows = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(filter.status)
        .bind(&filter.place)
        .bind(&filter.band)
        .bind(filter.band_id)
        .bind(&filter.country)
        .bind(limit)
        .bind(offset)
        .fetch_all(&mut *conn)
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
