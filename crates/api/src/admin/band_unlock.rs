//! `POST /admin/api/bands/{ma_id}/unlock` (issue 17): an admin unlocks a locked field
//! without waiting for a conflict. The field leaves `locked_fields` and the band is queued
//! for enrichment, so the source's value comes back at the next enrichment. Audited
//! (`band.unlock`).

use crate::admin::bands::Band;
use crate::auth::AdminSession;
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Json, Path};
use crate::state::AppState;
use axum::extract::State;
use bandmap_db::bands::admin::{self as db, Audit, BandField, UnlockOutcome};
use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

/// Routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(unlock_field))
}

/// Body of `POST /admin/api/bands/{ma_id}/unlock`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UnlockRequest {
    /// One of the editable fields: `name`, `genre`, `themes`, `status`, `country`,
    /// `location_text`, `formed_year`.
    #[schema(pattern = "^(name|genre|themes|status|country|location_text|formed_year)$")]
    pub field: String,
}

/// Unlocks one locked field: the crawler may write it again, and the band is flagged for
/// enrichment so it does soon. A field with a pending conflict is refused (409): resolve
/// the conflict (`accept` unlocks it with the source's value).
#[utoipa::path(
    post, path = "/bands/{ma_id}/unlock", tag = "admin: bands",
    params(("ma_id" = i64, Path, description = "Upstream band id")),
    request_body = UnlockRequest,
    responses(
        (status = 200, description = "The band after the unlock", body = Band),
        (status = 400, description = "Field outside the allowlist or bad body", body = ErrorBody),
        (status = 401, description = "No session", body = ErrorBody),
        (status = 404, description = "Unknown band", body = ErrorBody),
        (status = 409, description = "Field not locked, or a conflict is pending on it", body = ErrorBody),
    ),
    security(("session" = []))
)]
pub async fn unlock_field(
    State(state): State<AppState>,
    session: AdminSession,
    Path(ma_id): Path<i64>,
    Json(body): Json<Value>,
) -> Result<axum::Json<Band>, ApiError> {
    if !body.is_object() {
        return Err(ApiError::bad_request("the body must be a JSON object"));
    }
    let body: UnlockRequest = serde_json::from_value(body)
        .map_err(|e| ApiError::bad_request(format!("invalid body: {e}")))?;
    let field = BandField::parse(body.field.trim()).ok_or_else(|| {
        let names: Vec<&str> = BandField::ALL.iter().map(|f| f.as_str()).collect();
        ApiError::bad_request(format!("field must be one of: {}", names.join(", ")))
    })?;
    let who = Audit {
        username: &session.username,
        ip: session.ip.clone(),
    };
    match db::unlock_field(&state.pool, ma_id, field, &who).await? {
        UnlockOutcome::Unlocked(band) => Ok(axum::Json(*band)),
        UnlockOutcome::NotFound => Err(ApiError::not_found(format!("no band {ma_id}"))),
        UnlockOutcome::NotLocked => Err(ApiError::Conflict(format!(
            "field {} of band {ma_id} is not locked",
            field.as_str()
        ))),
        UnlockOutcome::PendingConflict => Err(ApiError::Conflict(format!(
            "field {} of band {ma_id} has a pending conflict: resolve it (accept unlocks it)",
            field.as_str()
        ))),
    }
}
