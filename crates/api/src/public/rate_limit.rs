//! Per-client rate limit of the public endpoints that query the database (`/api/bands/{id}`,
//! `/api/search`, issue 18; `/api/countries`, issue 31; the exports, the town and band pages and
//! the sitemap, issue 28): past its bucket ([`crate::guards::public_limiter`]) a client gets a
//! 429 `rate_limited` with `Retry-After`, answered from memory before any database work. The
//! map itself (`/api/clusters`) answers from memory and is not limited.

use crate::auth::client_addr::ClientAddr;
use crate::error::ApiError;
use crate::guards::public_limiter::client_key;
use crate::state::AppState;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// The middleware: a 429 past the client's rate, else the handler.
pub async fn limit(
    State(state): State<AppState>,
    ClientAddr(addr): ClientAddr,
    req: Request,
    next: Next,
) -> Response {
    match state
        .guards
        .public_limiter
        .check(&client_key(addr.as_deref()))
    {
        Ok(()) => next.run(req).await,
        Err(wait) => ApiError::RateLimited {
            message: "too many requests from this address; retry later".to_string(),
            retry_after_secs: wait.as_secs_f64().ceil().max(1.0) as u64,
        }
        .into_response(),
    }
}
