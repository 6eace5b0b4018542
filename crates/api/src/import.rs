//! Bulk import of bands: `POST /api/import/bands` (bearer `BANDMAP_IMPORT_TOKEN`) and the
//! `bandmap import FILE` command share this parser and the crawler's upsert path
//! (`bandmap_db::bands::upsert::upsert_bands`), so locked fields and conflicts are
//! respected. The whole input is validated before anything is written, and written in one
//! transaction.

mod parse;

pub use parse::{InvalidInput, parse_bands};

use crate::auth::bearer::check_bearer;
use crate::error::{ApiError, ErrorBody, plain};
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, FromRequest, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use bandmap_db::bands::upsert::{UpsertReport, upsert_bands};
use chrono::{Datelike, Utc};
use serde::Serialize;
use sqlx::PgPool;
use std::path::{Path, PathBuf};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Largest accepted request body.
pub const MAX_BODY_BYTES: usize = 50 * 1024 * 1024;

/// Why an import failed.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Cause.
        #[source]
        source: std::io::Error,
    },
    /// The input is invalid; nothing was written.
    #[error("invalid input, nothing imported: {0}")]
    Invalid(#[from] InvalidInput),
    /// The database refused the upsert; nothing was written.
    #[error("database: {0}")]
    Db(#[from] bandmap_db::DbError),
}

fn max_year() -> i32 {
    Utc::now().year() + 1
}

/// Imports an NDJSON (or JSON array) file: the `bandmap import FILE` command.
pub async fn import_file(pool: &PgPool, path: &Path) -> Result<UpsertReport, ImportError> {
    let body = tokio::fs::read(path)
        .await
        .map_err(|source| ImportError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    let bands = parse_bands(&body, max_year())?;
    Ok(upsert_bands(pool, &bands).await?)
}

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
        let bands = parse_bands(&body, max_year())
            .map_err(|e| ApiError::bad_request(format!("nothing imported: {e}")))?;
        let report = upsert_bands(&state.pool, &bands).await?;
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
