//! Liveness and readiness: `/healthz` answers while the process is up (it never touches the
//! database), `/readyz` when the database answers within [`READY_TIMEOUT`].

use crate::error::ApiError;
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use serde_json::{Value, json};
use std::time::Duration;
use utoipa_axum::{router::OpenApiRouter, routes};

/// Longest wait of the readiness check for a pooled connection and `SELECT 1`. The pool's
/// own acquire timeout (10 s, for real work) is left as it is; a probe must answer fast so a
/// load balancer takes the replica out within a second of the database going away.
pub const READY_TIMEOUT: Duration = Duration::from_millis(800);

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
    let check = sqlx::query_scalar::<_, i32>("SELECT 1").fetch_one(&state.pool);
    match tokio::time::timeout(READY_TIMEOUT, check).await {
        Ok(Ok(_)) => Ok(Json(json!({"status": "ready"}))),
        Ok(Err(e)) => Err(unreachable(&e)),
        Err(_) => Err(unreachable(&format!(
            "no answer within {} ms",
            READY_TIMEOUT.as_millis()
        ))),
    }
}

fn unreachable(cause: &dyn std::fmt::Display) -> ApiError {
    tracing::warn!(error = %cause, "readiness probe: database unreachable");
    ApiError::Unavailable("database unreachable".to_string())
}
