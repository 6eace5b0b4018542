//! `POST /admin/auth/login`, `POST /admin/auth/logout`, `GET /admin/auth/me`.

use super::client_addr::ClientAddr;
use super::cookie::{cleared_cookie, session_cookie};
use super::lockout;
use super::origin::{require_json, require_same_origin};
use super::password;
use super::session::{AdminSession, issue_token};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, clean_text};
use crate::guards::login_gate::{Decision, Outcome};
use crate::state::AppState;
use axum::extract::{FromRequestParts, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use secrecy::ExposeSecret;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Longest username kept (longer input is cut before lookup and recording).
use bandmap_config::MAX_USERNAME_CHARS;
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
        (status = 401, description = "Wrong credentials, or admin authentication not configured (the same answer; the reason is logged)", body = ErrorBody),
        (status = 403, description = "Cross-site request (`Origin` / `Sec-Fetch-Site`)", body = ErrorBody),
        (status = 429, description = "Locked out: 5 failures within 15 minutes for this username or address; or every password-check slot busy. See Retry-After", body = ErrorBody),
    )
)]
pub async fn login(
    State(state): State<AppState>,
    ClientAddr(ip): ClientAddr,
    headers: HeaderMap,
    Json(body): Json<LoginRequest>,
) -> ApiResult<impl IntoResponse> {
    require_same_origin(&headers)?;
    let username: String = clean_text(&body.username, false)
        .trim()
        .chars()
        .take(MAX_USERNAME_CHARS)
        .collect();
    let now = state.clock.now();
    let ip = ip.as_deref();
    let gate = &state.guards.login_gate;
    // The gate first: a locked key costs no database work and no bcrypt.
    let reservation = match gate.enter(&username, ip, now) {
        Decision::Open(r) => r,
        Decision::Locked { retry_after_secs } => return Err(locked_out(retry_after_secs)),
    };
    let admin = &state.config.admin;
    let configured = admin.seed_username.is_some()
        && (admin.seed_password.is_some() || admin.seed_password_hash.is_some());
    let Some(secret) = admin.jwt_secret.as_ref().filter(|_| configured) else {
        // The answer is the one of wrong credentials: which setting is missing or unusable
        // is the operator's business (the log and the start-up warnings), not a visitor's.
        lockout::record_attempt(&state.pool, &username, ip, now).await?;
        reservation.finish(Outcome::Failed(now));
        tracing::warn!(
            unusable = ?admin.unusable,
            "login refused: admin authentication is not configured (ADMIN_SEED_* and ADMIN_JWT_SECRET)"
        );
        return Err(wrong_credentials());
    };
    // Failures other replicas recorded, before a password-check slot is taken: a locked
    // key never holds one.
    match lockout::locks(&state.pool, &username, ip, now).await {
        Ok(locks) => {
            if let Some(wait) = gate.refuse_until(&username, ip, locks.user, locks.addr, now) {
                reservation.finish(Outcome::Withdrawn);
                return Err(locked_out(wait));
            }
        }
        Err(e) => {
            reservation.finish(Outcome::Withdrawn);
            return Err(e.into());
        }
    }
    // A bounded number of checks at once; the slot is held through bcrypt.
    let Some(_slot) = gate.try_check() else {
        reservation.finish(Outcome::Withdrawn);
        return Err(ApiError::RateLimited {
            message: "too many logins are being checked at once; try again in 1 s".into(),
            retry_after_secs: 1,
        });
    };
    let attempt_id = match lockout::record_attempt(&state.pool, &username, ip, now).await {
        Ok(id) => id,
        Err(e) => {
            reservation.finish(Outcome::Withdrawn);
            return Err(e.into());
        }
    };
    // From here an error leaves the attempt a failure, in the table and in the gate.
    let record = bandmap_db::admin_users::login_record(&state.pool, &username).await?;
    let (stored, generation) = record.map_or((None, 0), |(h, g)| (Some(h), g));
    let password = body.password;
    let ok = password.len() <= MAX_PASSWORD_BYTES && password::verify(password, stored).await?;
    if !ok {
        reservation.finish(Outcome::Failed(now));
        tracing::info!(%username, ip = ?ip, "login failed");
        return Err(wrong_credentials());
    }
    lockout::mark_success(&state.pool, attempt_id).await?;
    reservation.finish(Outcome::Succeeded);
    let token = issue_token(
        secret.expose_secret().as_bytes(),
        &username,
        generation,
        now,
    )?;
    tracing::info!(%username, "admin logged in");
    Ok((
        [(header::SET_COOKIE, session_cookie(&token))],
        axum::Json(Me { username }),
    ))
}

fn locked_out(retry_after_secs: u64) -> ApiError {
    ApiError::RateLimited {
        message: format!("too many failed logins; try again in {retry_after_secs} s"),
        retry_after_secs,
    }
}

/// Ends the session: every token of the account issued so far stops working, and the
/// cookie is cleared. Requires `Content-Type: application/json` (any body) like every
/// admin write, and a same-site origin. 204 also without a valid session: logging out
/// twice is not an error.
#[utoipa::path(
    post, path = "/logout", tag = "auth",
    responses(
        (status = 204, description = "Sessions of the account ended, cookie cleared (`Max-Age=0`)"),
        (status = 403, description = "Cross-site request (`Origin` / `Sec-Fetch-Site`)", body = ErrorBody),
        (status = 415, description = "No JSON content type (code bad_request)", body = ErrorBody),
    )
)]
pub async fn logout(State(state): State<AppState>, request: Request) -> ApiResult<Response> {
    let (mut parts, _body) = request.into_parts();
    require_json(&parts.headers, StatusCode::UNSUPPORTED_MEDIA_TYPE)?;
    require_same_origin(&parts.headers)?;
    match AdminSession::from_request_parts(&mut parts, &state).await {
        Ok(session) => {
            bandmap_db::admin_users::end_sessions(&state.pool, &session.username).await?;
            tracing::info!(username = %session.username, "admin logged out; sessions ended");
        }
        Err(ApiError::Unauthorized(_)) => {}
        Err(e) => return Err(e),
    }
    Ok((
        StatusCode::NO_CONTENT,
        [(header::SET_COOKIE, cleared_cookie())],
    )
        .into_response())
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
