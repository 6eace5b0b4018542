//! Admin API: `band_locations` — the filtered list, manual coordinates (rule 19), re-queue
//! of one row and the four bulk actions. Every write is one transaction with its audit
//! row; the queries live in [`bandmap_db::band_locations`].

use crate::admin::common;
use crate::admin::common::shapes::{Affected, ListPage};
use crate::auth::AdminSession;
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Json, PageParams, Path, Query, contains_pattern};
use crate::param::{self, FilterText, OneOf, Text};
use crate::state::AppState;
use axum::extract::State;
use bandmap_db::Point;
use bandmap_db::audit::{self, Entry};
use bandmap_db::band_locations::GeocodeStatus;
use bandmap_db::band_locations::admin::{self as db, LocationFilter, LocationRow};
use bandmap_db::band_locations::manual_point::set_manual_point;
use bandmap_db::band_locations::requeue::{Bulk, bulk_requeue, requeue_one};
use serde::Deserialize;
use serde_json::json;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::{router::OpenApiRouter, routes};

/// One `band_locations` row, as `crates/db` reads it (a NaN coordinate or confidence is
/// null on the wire: serde_json writes a non-finite float as `null`).
pub use bandmap_db::band_locations::admin::LocationRow as LocationItem;

/// Routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(set_point))
        .routes(routes!(requeue))
        .routes(routes!(reset_errors))
        .routes(routes!(reset_llm))
        .routes(routes!(requeue_all))
        .routes(routes!(reset_all))
}

/// Longest text kept from `place` and `band` (longer input is truncated).
const PATTERN_CHARS: usize = 100;

/// `GeocodeStatus` as a parameter (an alias: utoipa reads a generic type's schema through
/// `ComposeSchema`, a plain path's through [`utoipa::PartialSchema`]).
pub type GeocodeStatusParam = OneOf<GeocodeStatus>;

/// Query of `GET /admin/api/locations`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LocationsQuery {
    /// One of `pending`, `processing`, `done`, `country_only`, `llm_needed`, `manual`,
    /// `error` (any case).
    #[serde(default, deserialize_with = "param::status")]
    #[param(inline)]
    status: Option<GeocodeStatusParam>,
    /// Case-insensitive substring of the raw place (wildcards literal, truncated to 100).
    #[serde(default, deserialize_with = "param::place")]
    #[param(inline)]
    place: Option<Text>,
    /// Case-insensitive substring of the band name, or the exact `ma_id` when numeric.
    #[serde(default, deserialize_with = "param::band")]
    #[param(inline)]
    band: Option<Text>,
    /// Country name or ISO code, case-insensitive (at most 100 characters).
    #[serde(default, deserialize_with = "param::country")]
    #[param(value_type = Option<String>, max_length = 100)]
    country: Option<FilterText>,
    /// The page.
    #[serde(flatten)]
    #[param(ignore)]
    page: PageParams,
}

/// Filterable list of `band_locations`, grouped by band and step.
#[utoipa::path(get, path = "/locations", tag = "admin-locations", params(LocationsQuery, PageParams),
    security(("session" = [])),
    responses(
        (status = 200, description = "a page of rows", body = ListPage<LocationItem>),
        (status = 400, description = "bad parameter", body = ErrorBody),
        (status = 401, description = "no session", body = ErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    Query(q): Query<LocationsQuery>,
) -> Result<axum::Json<ListPage<LocationItem>>, ApiError> {
    let band = q.band.map(|b| b.0);
    let filter = LocationFilter {
        status: q.status.map(|s| s.0),
        place: q.place.map(|p| contains_pattern(&p.0, PATTERN_CHARS)),
        band_id: band.as_deref().and_then(|b| b.parse::<i64>().ok()),
        band: band.map(|b| contains_pattern(&b, PATTERN_CHARS)),
        country: q.country.map(|c| c.0),
    };
    let page = q.page.page();
    let (rows, total) = db::list(&state.pool, &filter, page.limit, page.offset).await?;
    Ok(axum::Json(ListPage::from_rows(rows, total, page)))
}

/// Body of `PATCH /admin/api/locations/:id`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ManualPoint {
    /// Latitude, finite, in [-90, 90].
    #[schema(minimum = -90.0, maximum = 90.0)]
    pub lat: f64,
    /// Longitude, finite, in [-180, 180].
    #[schema(minimum = -180.0, maximum = 180.0)]
    pub lon: f64,
}

impl ManualPoint {
    /// A JSON object with exactly `lat` and `lon`, finite and in bounds, as a [`Point`];
    /// anything else → 400 (naming the coordinate out of bounds).
    fn parse(body: serde_json::Value) -> Result<Point, ApiError> {
        if !body.is_object() {
            return Err(ApiError::bad_request(
                "body must be an object {\"lat\", \"lon\"}",
            ));
        }
        let point: ManualPoint = serde_json::from_value(body)
            .map_err(|e| ApiError::bad_request(format!("invalid body: {e}")))?;
        Point::new(point.lat, point.lon).map_err(|e| ApiError::bad_request(e.to_string()))
    }
}

/// Manual coordinates: status `done`, `step_order` -1, provider `manual`, confidence 1,
/// and the band's primary point re-synchronised in the same transaction. Audited.
#[utoipa::path(patch, path = "/locations/{id}", tag = "admin-locations",
    params(("id" = i64, Path, description = "band_locations id")),
    request_body = ManualPoint, security(("session" = [])),
    responses(
        (status = 200, description = "the updated row", body = LocationItem),
        (status = 400, description = "invalid body or coordinates", body = ErrorBody),
        (status = 401, description = "no session", body = ErrorBody),
        (status = 404, description = "unknown id", body = ErrorBody)))]
pub async fn set_point(
    State(state): State<AppState>,
    session: AdminSession,
    Path(id): Path<i64>,
    Json(body): Json<serde_json::Value>,
) -> Result<axum::Json<LocationItem>, ApiError> {
    let point = ManualPoint::parse(body)?;
    let mut tx = state.pool.begin().await?;
    let before = db::get_for_update(&mut tx, id)
        .await?
        .ok_or_else(|| not_found(id))?;
    set_manual_point(&mut tx, id, point).await?;
    let after = db::get(&mut tx, id).await?.ok_or_else(|| not_found(id))?;
    record(
        &mut tx,
        &session,
        "location.patch",
        &format!("location:{id}"),
        Some(&before),
        &after,
    )
    .await?;
    tx.commit().await?;
    Ok(axum::Json(after))
}

/// Re-queues one row: `pending`, attempts 0, error cleared, due now. Audited.
#[utoipa::path(post, path = "/locations/{id}/requeue", tag = "admin-locations",
    params(("id" = i64, Path, description = "band_locations id")),
    security(("session" = [])),
    responses(
        (status = 200, description = "the re-queued row", body = LocationItem),
        (status = 400, description = "invalid id", body = ErrorBody),
        (status = 401, description = "no session", body = ErrorBody),
        (status = 404, description = "unknown id", body = ErrorBody)))]
pub async fn requeue(
    State(state): State<AppState>,
    session: AdminSession,
    Path(id): Path<i64>,
) -> Result<axum::Json<LocationItem>, ApiError> {
    let mut tx = state.pool.begin().await?;
    let before = db::get_for_update(&mut tx, id)
        .await?
        .ok_or_else(|| not_found(id))?;
    requeue_one(&mut tx, id).await?;
    let after = db::get(&mut tx, id).await?.ok_or_else(|| not_found(id))?;
    record(
        &mut tx,
        &session,
        "location.requeue",
        &format!("location:{id}"),
        Some(&before),
        &after,
    )
    .await?;
    tx.commit().await?;
    Ok(axum::Json(after))
}

fn not_found(id: i64) -> ApiError {
    ApiError::not_found(format!("no band_locations row {id}"))
}

async fn record(
    conn: &mut sqlx::PgConnection,
    session: &AdminSession,
    action: &str,
    target: &str,
    before: Option<&LocationRow>,
    after: &LocationRow,
) -> Result<(), ApiError> {
    let to_json = |r: &LocationRow| serde_json::to_value(r).map_err(ApiError::internal);
    let before = before.map(to_json).transpose()?;
    common::audit::record(conn, session, action, target, before, Some(to_json(after)?)).await
}

/// How many times a bulk action is run again after the database aborted it as a deadlock
/// victim (it locks many rows that the workers are writing at the same time; a crawler
/// write locks a band before its locations, the opposite order, so not every cycle can be
/// avoided by lock order).
const BULK_ATTEMPTS: u32 = 8;

/// Pause before attempt `n + 1`: grows with `n`, so the workers' transactions can finish.
fn bulk_backoff(n: u32) -> std::time::Duration {
    bandmap_time::Backoff::linear(
        std::time::Duration::from_millis(25),
        std::time::Duration::MAX,
    )
    .delay(n)
}

async fn run_bulk(
    state: &AppState,
    session: &AdminSession,
    action: Bulk,
) -> Result<Affected, ApiError> {
    let mut attempt = 1;
    loop {
        match bulk_once(state, session, action).await {
            Err(e) if e.is_retryable() && attempt < BULK_ATTEMPTS => {
                tracing::warn!(attempt, error = %e, "bulk action aborted by the database; running it again");
                tokio::time::sleep(bulk_backoff(attempt)).await;
                attempt += 1;
            }
            Err(e) => return Err(e.into()),
            Ok(affected) => return Ok(affected),
        }
    }
}

async fn bulk_once(
    state: &AppState,
    session: &AdminSession,
    action: Bulk,
) -> Result<Affected, bandmap_db::DbError> {
    let mut tx = state.pool.begin().await?;
    let moved = bulk_requeue(&mut tx, action).await?;
    let affected: u64 = moved.values().sum();
    let entry = Entry {
        username: &session.username,
        action: action.action(),
        target: "locations:bulk",
        // How many rows each status held before the move: the diff an operator needs to
        // judge (or undo by hand) a bulk action.
        before: Some(json!({"statuses": action.statuses(), "by_status": moved})),
        after: Some(json!({"status": GeocodeStatus::Pending, "affected": affected})),
        ip: session.ip.clone(),
    };
    audit::record(&mut tx, &entry).await?;
    tx.commit().await?;
    Ok(Affected { affected })
}

/// Re-queues the `error` rows and the rows stuck in `processing`.
#[utoipa::path(post, path = "/locations/reset-errors", tag = "admin-locations",
    security(("session" = [])),
    responses(
        (status = 200, description = "rows moved", body = Affected),
        (status = 401, description = "no session", body = ErrorBody)))]
pub async fn reset_errors(
    State(state): State<AppState>,
    session: AdminSession,
) -> Result<axum::Json<Affected>, ApiError> {
    Ok(axum::Json(
        run_bulk(&state, &session, Bulk::ResetErrors).await?,
    ))
}

/// Re-queues the `llm_needed` and `manual` rows.
#[utoipa::path(post, path = "/locations/reset-llm", tag = "admin-locations",
    security(("session" = [])),
    responses(
        (status = 200, description = "rows moved", body = Affected),
        (status = 401, description = "no session", body = ErrorBody)))]
pub async fn reset_llm(
    State(state): State<AppState>,
    session: AdminSession,
) -> Result<axum::Json<Affected>, ApiError> {
    Ok(axum::Json(
        run_bulk(&state, &session, Bulk::ResetLlm).await?,
    ))
}

/// Re-queues every row, keeping its coordinates until the geocoder replaces them.
#[utoipa::path(post, path = "/locations/requeue-all", tag = "admin-locations",
    security(("session" = [])),
    responses(
        (status = 200, description = "rows moved", body = Affected),
        (status = 401, description = "no session", body = ErrorBody)))]
pub async fn requeue_all(
    State(state): State<AppState>,
    session: AdminSession,
) -> Result<axum::Json<Affected>, ApiError> {
    Ok(axum::Json(
        run_bulk(&state, &session, Bulk::RequeueAll).await?,
    ))
}

/// Re-queues every row and clears coordinates, provider, confidence and granularity
/// (destructive); the bands' primary points are re-synchronised.
#[utoipa::path(post, path = "/locations/reset-all", tag = "admin-locations",
    security(("session" = [])),
    responses(
        (status = 200, description = "rows moved", body = Affected),
        (status = 401, description = "no session", body = ErrorBody)))]
pub async fn reset_all(
    State(state): State<AppState>,
    session: AdminSession,
) -> Result<axum::Json<Affected>, ApiError> {
    Ok(axum::Json(
        run_bulk(&state, &session, Bulk::ResetAll).await?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manual_point_parsing() {
        let p = |v: serde_json::Value| ManualPoint::parse(v).is_ok();
        assert!(p(serde_json::json!({"lat": 90, "lon": -180})));
        assert!(!p(serde_json::json!({"lat": 1, "lon": 2, "extra": 3})));
        assert!(!p(serde_json::json!([1, 2])));
        assert!(!p(serde_json::json!({"lat": 90.0001, "lon": 0})));
    }
}
