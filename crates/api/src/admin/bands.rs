//! Admin API: bands (CONTRACT §6). The list with its filters, one band with its locations
//! and LLM calls, the PATCH that locks edited fields, and conflict resolution.

mod params;
mod schema;

pub use params::{BandListParams, BandPatchRequest, ResolveConflictRequest};
pub use schema::{Band, BandDetailResponse, BandItem, BandPage};

use crate::auth::AdminSession;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Path, Query};
use crate::state::AppState;
use axum::extract::State;
use bandmap_db::bands::admin::{self as db, Audit, ConflictAction, ResolveOutcome};
use chrono::Datelike;
use params::ConflictActionName;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_bands))
        .routes(routes!(get_band, patch_band))
        .routes(routes!(resolve_conflict))
}

fn unknown_band(ma_id: i64) -> ApiError {
    ApiError::not_found(format!("no band {ma_id}"))
}

/// Bands matching the filters, one page.
#[utoipa::path(
    get, path = "/bands", tag = "admin: bands",
    params(BandListParams),
    responses(
        (status = 200, body = BandPage),
        (status = 400, description = "Invalid parameter", body = ErrorBody),
        (status = 401, description = "No session", body = ErrorBody),
    ),
    security(("session" = []))
)]
pub async fn list_bands(
    State(state): State<AppState>,
    Query(params): Query<BandListParams>,
) -> ApiResult<axum::Json<BandPage>> {
    let filter = params.into_filter();
    let (rows, total) =
        bandmap_index::band_search::list_bands(&state.pool, &state.read.band_search, &filter)
            .await?;
    Ok(axum::Json(BandPage {
        items: rows,
        total,
        limit: filter.limit,
        offset: filter.offset,
    }))
}

/// One band with its location rows and LLM calls.
#[utoipa::path(
    get, path = "/bands/{ma_id}", tag = "admin: bands",
    params(("ma_id" = i64, Path, description = "Upstream band id")),
    responses(
        (status = 200, body = BandDetailResponse),
        (status = 400, description = "Non-numeric id", body = ErrorBody),
        (status = 401, description = "No session", body = ErrorBody),
        (status = 404, description = "Unknown band", body = ErrorBody),
    ),
    security(("session" = []))
)]
pub async fn get_band(
    State(state): State<AppState>,
    Path(ma_id): Path<i64>,
) -> ApiResult<axum::Json<BandDetailResponse>> {
    let band = db::band_detail(&state.pool, ma_id)
        .await?
        .ok_or_else(|| unknown_band(ma_id))?;
    let (locations, llm_calls, llm_calls_total) = tokio::try_join!(
        db::locations(&state.pool, ma_id),
        db::llm_calls(&state.pool, ma_id),
        db::llm_calls_total(&state.pool, ma_id)
    )?;
    Ok(axum::Json(BandDetailResponse {
        band,
        locations,
        llm_calls,
        llm_calls_total,
    }))
}

/// ISO code of an edited or accepted country name (None when the name is not one we know:
/// the code is then cleared rather than left pointing at the old country).
fn country_code_of(name: &str) -> Option<&'static str> {
    bandmap_location::countries::resolve(name).map(|c| c.code)
}

/// Edits fields of a band: each edited field joins `locked_fields` and only its key leaves
/// `crawler_pending`. Audited (`band.patch`).
#[utoipa::path(
    patch, path = "/bands/{ma_id}", tag = "admin: bands",
    params(("ma_id" = i64, Path, description = "Upstream band id")),
    request_body = BandPatchRequest,
    responses(
        (status = 200, description = "The band after the edit", body = Band),
        (status = 400, description = "Empty body, unknown key, wrong type or bound", body = ErrorBody),
        (status = 401, description = "No session", body = ErrorBody),
        (status = 404, description = "Unknown band", body = ErrorBody),
    ),
    security(("session" = []))
)]
pub async fn patch_band(
    State(state): State<AppState>,
    session: AdminSession,
    Path(ma_id): Path<i64>,
    Json(body): Json<serde_json::Value>,
) -> ApiResult<axum::Json<Band>> {
    let body: BandPatchRequest = params::from_object(body)?;
    let edits = body.into_edits(state.clock.now().year() + 1)?;
    let who = Audit {
        username: &session.username,
        ip: session.ip.clone(),
    };
    let band = db::patch_band(&state.pool, ma_id, &edits, &who, country_code_of)
        .await?
        .ok_or_else(|| unknown_band(ma_id))?;
    Ok(axum::Json(band))
}

/// Resolves the pending conflict of one field: `keep` the admin value (the field stays
/// locked) or `accept` the upstream value (cast to the column type; the field is unlocked).
/// Audited (`band.resolve_conflict.keep|accept`).
#[utoipa::path(
    post, path = "/bands/{ma_id}/resolve-conflict", tag = "admin: bands",
    params(("ma_id" = i64, Path, description = "Upstream band id")),
    request_body = ResolveConflictRequest,
    responses(
        (status = 200, description = "The band after the resolution", body = Band),
        (status = 400, description = "Field outside the allowlist, bad action, or an upstream value that cannot be cast", body = ErrorBody),
        (status = 401, description = "No session", body = ErrorBody),
        (status = 404, description = "Unknown band", body = ErrorBody),
        (status = 409, description = "No pending conflict on that field", body = ErrorBody),
    ),
    security(("session" = []))
)]
pub async fn resolve_conflict(
    State(state): State<AppState>,
    session: AdminSession,
    Path(ma_id): Path<i64>,
    Json(body): Json<serde_json::Value>,
) -> ApiResult<axum::Json<Band>> {
    let body: ResolveConflictRequest = params::from_object(body)?;
    let field = body.field.into();
    let action = match body.action {
        ConflictActionName::Keep => ConflictAction::Keep,
        ConflictActionName::Accept => ConflictAction::Accept,
    };
    let who = Audit {
        username: &session.username,
        ip: session.ip.clone(),
    };
    match db::resolve_conflict(&state.pool, ma_id, field, action, &who, country_code_of).await? {
        ResolveOutcome::Resolved(band) => Ok(axum::Json(*band)),
        ResolveOutcome::NotFound => Err(unknown_band(ma_id)),
        ResolveOutcome::NoConflict => Err(ApiError::Conflict(format!(
            "band {ma_id} has no pending conflict on {}",
            field.as_str()
        ))),
        ResolveOutcome::BadValue(msg) => Err(ApiError::bad_request(msg)),
    }
}
