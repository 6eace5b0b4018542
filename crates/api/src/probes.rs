//! Liveness and readiness: `/healthz` answers while the process is up, `/readyz` when the
//! database answers.

use crate::error::ApiError;
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use serde_json::{Value, json};
use utoipa_axum::{router::OpenApiRouter, routes};

/// Routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(healthz))
        .routes(routes!(readyz))
}

/// The process is up.
#[utoipa::path(get, path = "/healthz", tag = "probes",
    responses((status = 200, description = "process up", body = Object)))]
pub async fn healthz() -> Json<Value> {
    Json(json!({"status": "ok"}))
}

/// The database answers.
#[utoipa::path(get, path = "/readyz", tag = "probes",
    responses((status = 200, description = "database reachable", body = Object),
              (status = 503, description = "database unreachable", body = crate::error::ErrorBody)))]
pub async fn readyz(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    // 503, not 500: a load balancer should take the replica out, not page for a bug.
    sqlx::query_scalar::<_, i32>("SELECT 1")
        .fetch_one(&state.pool)
        .await
        .map_err(|e| {
            tracing::warn!(error = %e, "readiness probe: database unreachable");
            ApiError::Unavailable("database unreachable".to_string())
        })?;
    Ok(Json(json!({"status": "ready"})))
}
