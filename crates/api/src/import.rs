//! `POST /api/import/bands` (bearer `BANDMAP_IMPORT_TOKEN`): the HTTP side of the bulk
//! import (token, body limit, its own time limit, the audit row, status codes). The body
//! is parsed as it arrives by `bandmap_import::parse_reader` (shared with `bandmap import
//! FILE`): the whole input is validated before anything is written, then written with its
//! audit row in one transaction.

use crate::auth::bearer::check_bearer;
use crate::auth::client_addr::ClientAddr;
use crate::error::{ApiError, ErrorBody};
use crate::state::AppState;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use bandmap_db::audit::Entry;
use bandmap_db::bands::upsert::{BandInput, upsert_bands};
use bandmap_import::{ReadError, parse_reader};
use futures::StreamExt;
use serde::Serialize;
use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio_util::io::{StreamReader, SyncIoBridge};
use tokio_util::sync::CancellationToken;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Largest accepted request body.
pub const MAX_BODY_BYTES: usize = 50 * 1024 * 1024;

/// Path of the import (the server's 30 s limit skips it: it has its own).
pub const PATH: &str = "/api/import/bands";

/// Who the audit log names for an import (the token is not a person).
pub const AUDIT_USER: &str = "(import token)";

/// Routes of the import, merged into the public router (mounted at `/api`).
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(import_bands))
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

/// Imports bands: NDJSON (one object per line) or a JSON array, read as it arrives; at most
/// 50 MB; within `IMPORT_TIME_LIMIT_SECS`. Each import that passes the token writes an
/// audit row (`bands.import`, or `bands.import_refused` with the reason).
#[utoipa::path(
    post, path = "/import/bands", tag = "import",
    request_body(
        content((Vec<ImportBand> = "application/json"), (ImportBand = "application/x-ndjson")),
        description = "A JSON array of band objects, or NDJSON: one band object per line"
    ),
    responses(
        (status = 200, body = ImportReport),
        (status = 400, description = "Malformed body, unknown key or invalid value (nothing written)", body = ErrorBody),
        (status = 401, description = "Missing or wrong token, or import disabled (token unset or shorter than 32 bytes)", body = ErrorBody),
        (status = 413, description = "Body larger than 50 MB (code bad_request)", body = ErrorBody),
        (status = 503, description = "Past IMPORT_TIME_LIMIT_SECS (nothing written)", body = ErrorBody),
    ),
    security(("import_token" = []))
)]
pub async fn import_bands(
    State(state): State<AppState>,
    ClientAddr(ip): ClientAddr,
    request: Request,
) -> Response {
    let server = &state.config.server;
    // The token is checked before the body is read.
    if server.import_token.is_none() {
        // The visitor gets the answer of a wrong token; why the endpoint is off is in the
        // log (and in the warnings at start).
        tracing::warn!(
            why = server
                .import_token_unusable
                .as_deref()
                .unwrap_or("BANDMAP_IMPORT_TOKEN is not set"),
            "import refused: the endpoint is disabled"
        );
    }
    if let Err(e) = check_bearer(request.headers(), server.import_token.as_ref()) {
        return e.into_response();
    }
    let limit = server.import_time_limit;
    match tokio::time::timeout(limit, run(&state, ip, request)).await {
        Ok(Ok(report)) => axum::Json(report).into_response(),
        Ok(Err(e)) => e.into_response(),
        Err(_) => {
            tracing::warn!(
                limit_secs = limit.as_secs(),
                "import ran past its time limit"
            );
            ApiError::Unavailable(format!(
                "the import ran past its time limit of {} s (IMPORT_TIME_LIMIT_SECS); nothing imported",
                limit.as_secs()
            ))
            .into_response()
        }
    }
}

fn too_large() -> ApiError {
    ApiError::refused(
        StatusCode::PAYLOAD_TOO_LARGE,
        "import body larger than 50 MB; use `bandmap import FILE`",
    )
}

/// Reads, validates and writes one import; dropping this future (time limit) stops the
/// body read and rolls the transaction back.
async fn run(
    state: &AppState,
    ip: Option<String>,
    request: Request,
) -> Result<ImportReport, ApiError> {
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_BODY_BYTES as u64) {
        return Err(too_large());
    }
    let bands = match read_bands(request).await {
        Ok(bands) => bands,
        Err(Read::Invalid(e)) => {
            let message = format!("nothing imported: {e}");
            audit(
                state,
                ip,
                "bands.import_refused",
                json!({ "error": message }),
            )
            .await?;
            return Err(ApiError::bad_request(message));
        }
        Err(Read::TooLarge) => return Err(too_large()),
        Err(Read::Unreadable(e)) => {
            return Err(ApiError::bad_request(format!("unreadable body: {e}")));
        }
        Err(Read::Task(e)) => return Err(ApiError::internal(e)),
    };
    let mut tx = state.pool.begin().await?;
    let report = upsert_bands(&mut *tx, &bands).await?;
    let entry = Entry {
        username: AUDIT_USER,
        action: "bands.import",
        target: "bands:import",
        before: None,
        after: Some(json!({
            "elements": bands.len(),
            "inserted": report.inserted,
            "updated": report.updated,
            "unchanged": report.unchanged,
        })),
        ip,
    };
    bandmap_db::audit::record(&mut *tx, &entry).await?;
    tx.commit().await?;
    tracing::info!(
        inserted = report.inserted,
        updated = report.updated,
        unchanged = report.unchanged,
        "bands imported"
    );
    Ok(ImportReport {
        inserted: report.inserted,
        updated: report.updated,
        unchanged: report.unchanged,
    })
}

async fn audit(
    state: &AppState,
    ip: Option<String>,
    action: &str,
    after: serde_json::Value,
) -> Result<(), ApiError> {
    let entry = Entry {
        username: AUDIT_USER,
        action,
        target: "bands:import",
        before: None,
        after: Some(after),
        ip,
    };
    bandmap_db::audit::record(&state.pool, &entry).await?;
    Ok(())
}

/// Why the body gave no bands.
enum Read {
    Invalid(bandmap_import::InvalidInput),
    TooLarge,
    Unreadable(std::io::Error),
    Task(tokio::task::JoinError),
}

/// Parses the body as it arrives, on a blocking thread (serde_json reads synchronously);
/// only the validated bands are kept. The stream ends early when this future is dropped,
/// so the thread does not outlive a timed-out import.
async fn read_bands(request: Request) -> Result<Vec<BandInput>, Read> {
    let over = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&over);
    let mut seen = 0usize;
    let stop = CancellationToken::new();
    let _stop_on_drop = stop.clone().drop_guard();
    let stream = request
        .into_body()
        .into_data_stream()
        .map(move |chunk| {
            let chunk = chunk.map_err(std::io::Error::other)?;
            seen = seen.saturating_add(chunk.len());
            if seen > MAX_BODY_BYTES {
                flag.store(true, Ordering::Relaxed);
                return Err(std::io::Error::other("body over its limit"));
            }
            Ok::<_, std::io::Error>(chunk)
        })
        .take_until(stop.cancelled_owned());
    let bridge = SyncIoBridge::new(StreamReader::new(Box::pin(stream)));
    let year = bandmap_import::max_year();
    let parsed = tokio::task::spawn_blocking(move || {
        parse_reader(std::io::BufReader::with_capacity(64 * 1024, bridge), year)
    })
    .await
    .map_err(Read::Task)?;
    match parsed {
        Ok(bands) => Ok(bands),
        Err(_) if over.load(Ordering::Relaxed) => Err(Read::TooLarge),
        Err(ReadError::Invalid(e)) => Err(Read::Invalid(e)),
        Err(ReadError::Io(e)) => Err(Read::Unreadable(e)),
    }
}
