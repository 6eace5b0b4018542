//! `POST /api/import/bands` (bearer `BANDMAP_IMPORT_TOKEN`): the HTTP side of the bulk
//! import (token, body limit, status codes); parsing, validation and the upsert are
//! `bandmap_import`'s, shared with the `bandmap import FILE` command.

use crate::auth::bearer::check_bearer;
use crate::error::{ApiError, ErrorBody, plain};
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, FromRequest, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use bandmap_import::{ImportError, import_body};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Largest accepted request body.
pub const MAX_BODY_BYTES: usize = 50 * 1024 * 1024;

/// Routes of the import, merged into the public router (mounted at `/api`).
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(import_bands))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
}

/// One band object of an import (keys are column names; `ma_id` and `name` required;
/// another key rejects the whole request).
#[derive(Debug, ToSchema)]
pub struct ImportBand {
    /// Upstream id, > 0.
    #[schema(minimum = 1)]
    pub ma_id: i64,
    /// Name (1–300 characters).
    pub name: String,
    pub country: Option<String>,
    /// ISO 3166-1 alpha-2.
    #[schema(pattern = "^[A-Za-z]{2}$")]
    pub country_code: Option<String>,
    pub location_text: Option<String>,
    pub genre: Option<String>,
    pub themes: Option<String>,
    pub status: Option<String>,
    #[schema(minimum = 1900)]
    pub formed_year: Option<i32>,
    pub label: Option<String>,
    /// Upstream page, http(s).
    pub url: Option<String>,
}

/// What an import did, per distinct `ma_id`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ImportReport {
    pub inserted: u64,
    pub updated: u64,
    pub unchanged: u64,
}

/// Imports bands: NDJSON (one object per line) or a JSON array; at most 50 MB.
#[utoipa::path(
    post, path = "/import/bands", tag = "import",
    request_body(
        content((Vec<ImportBand> = "application/json"), (ImportBand = "application/x-ndjson")),
        description = "A JSON array of band objects, or NDJSON: one band object per line"
    ),
    responses(
        (status = 200, body = ImportReport),
        (status = 400, description = "Malformed body, unknown key or invalid value (nothing written)", body = ErrorBody),
        (status = 401, description = "Missing or wrong token, or import disabled", body = ErrorBody),
        (status = 413, description = "Body larger than 50 MB (code bad_request)", body = ErrorBody),
    ),
    security(("import_token" = []))
)]
pub async fn import_bands(State(state): State<AppState>, request: Request) -> Response {
    // The token is checked before the body is read.
    if let Err(e) = check_bearer(request.headers(), state.config.server.import_token.as_ref()) {
        return e.into_response();
    }
    let body = match Bytes::from_request(request, &state).await {
        Ok(b) => b,
        Err(rejection) if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            return plain(
                StatusCode::PAYLOAD_TOO_LARGE,
                "bad_request",
                "import body larger than 50 MB; use `bandmap import FILE`",
            );
        }
        Err(rejection) => {
            return ApiError::bad_request(format!("unreadable body: {}", rejection.body_text()))
                .into_response();
        }
    };
    let result = async {
        let report = import_body(&state.pool, &body).await.map_err(|e| match e {
            ImportError::Invalid(e) => ApiError::bad_request(format!("nothing imported: {e}")),
            ImportError::Db(e) => ApiError::from(e),
            ImportError::Io { .. } => ApiError::internal(e),
        })?;
        tracing::info!(
            inserted = report.inserted,
            updated = report.updated,
            unchanged = report.unchanged,
            "bands imported"
        );
        Ok::<_, ApiError>(axum::Json(ImportReport {
            inserted: report.inserted,
            updated: report.updated,
            unchanged: report.unchanged,
        }))
    }
    .await;
    result.into_response()
}
