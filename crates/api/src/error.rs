//! The one error type of the API (STYLE habit 2). Client variants carry a safe message and
//! keep their 4xx status; `Internal` becomes a bare 500 whose cause is logged, never sent.

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;

/// An error answered to a client.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// Malformed or invalid input (400).
    #[error("{0}")]
    BadRequest(String),
    /// Missing or wrong credentials (401).
    #[error("{0}")]
    Unauthorized(String),
    /// Authenticated but not allowed (403).
    #[error("{0}")]
    Forbidden(String),
    /// Unknown resource (404).
    #[error("{0}")]
    NotFound(String),
    /// State does not allow the action (409).
    #[error("{0}")]
    Conflict(String),
    /// Too many attempts (429), with the seconds to wait.
    #[error("{message}")]
    RateLimited {
        /// Text for the client.
        message: String,
        /// Value of `Retry-After`.
        retry_after_secs: u64,
    },
    /// Another client error produced by the HTTP layer rather than a handler (405 wrong
    /// method, 413 body too large, 415 wrong content type): its status is kept, so a 4xx
    /// is never flattened to 400, and the body code is `bad_request`.
    #[error("{message}")]
    Refused {
        /// The 4xx status to answer.
        status: StatusCode,
        /// Text for the client.
        message: String,
    },
    /// The service cannot answer now (503): the database is unreachable or the request ran
    /// past its time limit. The message is ours and safe to send.
    #[error("{0}")]
    Unavailable(String),
    /// Unexpected failure (500); the cause is logged, not returned.
    #[error("internal error: {0}")]
    Internal(String),
}

/// Result alias of handlers.
pub type ApiResult<T> = Result<T, ApiError>;

/// The JSON body of every error (CONTRACT §4).
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorBody {
    /// The error.
    pub error: ErrorDetail,
}

/// Code and human message.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorDetail {
    /// One of bad_request, unauthorized, forbidden, not_found, conflict, rate_limited, internal.
    pub code: &'static str,
    /// Human text.
    pub message: String,
}

impl ApiError {
    /// Shorthand for a 400.
    pub fn bad_request(msg: impl Into<String>) -> Self {
        ApiError::BadRequest(msg.into())
    }

    /// Shorthand for a 404.
    pub fn not_found(msg: impl Into<String>) -> Self {
        ApiError::NotFound(msg.into())
    }

    /// A framework-level client error with its own 4xx status; anything that is not a 4xx
    /// becomes a 400, so this constructor can never produce a 5xx.
    pub fn refused(status: StatusCode, msg: impl Into<String>) -> Self {
        let status = if status.is_client_error() {
            status
        } else {
            StatusCode::BAD_REQUEST
        };
        ApiError::Refused {
            status,
            message: msg.into(),
        }
    }

    /// Wraps an unexpected failure (logged with its cause chain when answered).
    pub fn internal(err: impl std::fmt::Display) -> Self {
        ApiError::Internal(err.to_string())
    }

    fn status_and_code(&self) -> (StatusCode, &'static str) {
        match self {
            ApiError::BadRequest(_) => (StatusCode::BAD_REQUEST, "bad_request"),
            ApiError::Unauthorized(_) => (StatusCode::UNAUTHORIZED, "unauthorized"),
            ApiError::Forbidden(_) => (StatusCode::FORBIDDEN, "forbidden"),
            ApiError::NotFound(_) => (StatusCode::NOT_FOUND, "not_found"),
            ApiError::Conflict(_) => (StatusCode::CONFLICT, "conflict"),
            ApiError::RateLimited { .. } => (StatusCode::TOO_MANY_REQUESTS, "rate_limited"),
            ApiError::Refused { status, .. } => (*status, "bad_request"),
            ApiError::Unavailable(_) => (StatusCode::SERVICE_UNAVAILABLE, "internal"),
            ApiError::Internal(_) => (StatusCode::INTERNAL_SERVER_ERROR, "internal"),
        }
    }
}

/// SQLSTATE of a statement cancelled by `statement_timeout` (or a cancel request).
const QUERY_CANCELED: &str = "57014";

impl From<sqlx::Error> for ApiError {
    fn from(e: sqlx::Error) -> Self {
        match &e {
            // The pool's budget is spent (issue 18: each path has its own) or the statement
            // ran past its pool's timeout: the service is busy, not broken.
            sqlx::Error::PoolTimedOut => {
                tracing::warn!("no database connection free in time");
                ApiError::Unavailable("the service is busy; retry shortly".to_string())
            }
            sqlx::Error::Database(d) if d.code().as_deref() == Some(QUERY_CANCELED) => {
                tracing::warn!("a query ran past its statement timeout");
                ApiError::Unavailable("the request took too long".to_string())
            }
            _ => ApiError::Internal(format!("database: {e}")),
        }
    }
}

impl From<bandmap_db::DbError> for ApiError {
    fn from(e: bandmap_db::DbError) -> Self {
        match e {
            bandmap_db::DbError::Sqlx(e) => e.into(),
            e => ApiError::Internal(format!("database: {e}")),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, code) = self.status_and_code();
        let message = match &self {
            ApiError::Internal(cause) => {
                tracing::error!(cause = %cause, "request failed");
                "internal error".to_string()
            }
            other => other.to_string(),
        };
        let mut response = (
            status,
            Json(ErrorBody {
                error: ErrorDetail { code, message },
            }),
        )
            .into_response();
        if let ApiError::RateLimited {
            retry_after_secs, ..
        } = self
            && let Ok(v) = HeaderValue::from_str(&retry_after_secs.to_string())
        {
            response.headers_mut().insert(header::RETRY_AFTER, v);
        }
        response
    }
}

/// Builds the JSON error response for a status produced outside handlers (fallback 404,
/// timeouts, panics).
pub fn plain(status: StatusCode, code: &'static str, message: &str) -> Response {
    (
        status,
        Json(ErrorBody {
            error: ErrorDetail {
                code,
                message: message.to_string(),
            },
        }),
    )
        .into_response()
}
