//! `POST /admin/auth/login`, `POST /admin/auth/logout`, `GET /admin/auth/me`.

use super::client_addr::ClientAddr;
use super::cookie::{cleared_cookie, session_cookie};
use super::lockout::{self, Gate};
use super::password;
use super::session::{AdminSession, issue_token};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, clean_text};
use crate::state::AppState;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use secrecy::ExposeSecret;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Longest username kept (longer input is cut before lookup and recording).
const MAX_USERNAME_CHARS: usize = 200;
/// Longest password checked; longer ones fail without hashing (bcrypt reads 72 bytes).
const MAX_PASSWORD_BYTES: usize = 1024;

/// Login credentials.
#[derive(Debug, Deserialize, ToSchema)]
pub struct LoginRequest {
    /// Account name.
    pub username: String,
    /// Password.
    pub password: String,
}

/// The logged-in admin.
#[derive(Debug, Serialize, ToSchema)]
pub struct Me {
    /// Account name.
    pub username: String,
}

fn wrong_credentials() -> ApiError {
    ApiError::Unauthorized("invalid username or password".into())
}

/// Logs in and sets the session cookie.
#[utoipa::path(
    post, path = "/login", tag = "auth",
    request_body = LoginRequest,
    responses(
        (status = 200, description = "Logged in; `Set-Cookie: bandmap_session=…; HttpOnly; Secure; SameSite=Strict; Path=/admin; Max-Age=43200`", body = Me),
        (status = 400, description = "Malformed body", body = ErrorBody),
        (status = 401, description = "Wrong credentials, or admin authentication not configured", body = ErrorBody),
        (status = 429, description = "Locked out: 5 failures within 15 minutes for this username or address; see Retry-After", body = ErrorBody),
    )
)]
pub async fn login(
    State(state): State<AppState>,
    ClientAddr(ip): ClientAddr,
    Json(body): Json<LoginRequest>,
) -> ApiResult<impl IntoResponse> {
    let username: String = clean_text(&body.username, false)
        .trim()
        .chars()
        .take(MAX_USERNAME_CHARS)
        .collect();
    let now = state.clock.now();
    let admin = &state.config.admin;
    let configured = admin.seed_username.is_some()
        && (admin.seed_password.is_some() || admin.seed_password_hash.is_some());
    let Some(secret) = admin.jwt_secret.as_ref().filter(|_| configured) else {
        lockout::record_failure(&state.pool, &username, ip.as_deref(), now).await?;
        let mut message =
            "admin authentication is not configured (ADMIN_SEED_* and ADMIN_JWT_SECRET)"
                .to_string();
        if !admin.unusable.is_empty() {
            message = format!("{message}: {}", admin.unusable.join("; "));
        }
        return Err(ApiError::Unauthorized(message));
    };
    let attempt_id =
        match lockout::begin_attempt(&state.pool, &username, ip.as_deref(), now).await? {
            Gate::Open { attempt_id } => attempt_id,
            Gate::Locked { retry_after_secs } => {
                tracing::warn!(%username, ip = ?ip, "login refused: locked out");
                return Err(ApiError::RateLimited {
                    message: format!("too many failed logins; try again in {retry_after_secs} s"),
                    retry_after_secs,
                });
            }
        };
    let stored = bandmap_db::admin_users::password_hash(&state.pool, &username).await?;
    let password = body.password;
    let ok = password.len() <= MAX_PASSWORD_BYTES && password::verify(password, stored).await?;
    if !ok {
        tracing::info!(%username, ip = ?ip, "login failed");
        return Err(wrong_credentials());
    }
    lockout::mark_success(&state.pool, attempt_id).await?;
    let token = issue_token(secret.expose_secret().as_bytes(), &username, now)?;
    tracing::info!(%username, "admin logged in");
    Ok((
        [(header::SET_COOKIE, session_cookie(&token))],
        axum::Json(Me { username }),
    ))
}

/// Clears the session cookie. Always 204: logging out twice is not an error.
#[utoipa::path(
    post, path = "/logout", tag = "auth",
    responses((status = 204, description = "Cookie cleared (`Max-Age=0`)"))
)]
pub async fn logout() -> impl IntoResponse {
    (
        StatusCode::NO_CONTENT,
        [(header::SET_COOKIE, cleared_cookie())],
    )
}

/// The admin of the current session.
#[utoipa::path(
    get, path = "/me", tag = "auth",
    responses(
        (status = 200, description = "Logged in", body = Me),
        (status = 401, description = "No valid session", body = ErrorBody),
    ),
    security(("session" = []))
)]
pub async fn me(session: AdminSession) -> axum::Json<Me> {
    axum::Json(Me {
        username: session.username,
    })
}
