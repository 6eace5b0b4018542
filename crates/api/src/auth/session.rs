//! Admin sessions: HS256 JWTs signed with `ADMIN_JWT_SECRET`, carried in the
//! `bandmap_session` cookie. Any other algorithm, an expired, malformed or multi-byte token
//! is a 401, never a 500. A token also carries the session generation of its account at
//! login: logout, a password change or a re-seed moves the account's generation on, and
//! every older token is refused at its next request (one indexed lookup, which the
//! account-exists check made anyway). Also the CSRF guard of `/admin/api` writes
//! ([`super::origin`]).

use super::origin::{require_json, require_same_origin};
use crate::client_ip::{ProxyTrust, client_ip};
use crate::error::ApiError;
use crate::state::AppState;
use axum::extract::{ConnectInfo, FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use chrono::{DateTime, Utc};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use secrecy::ExposeSecret;
use serde::{Deserialize, Serialize};
use std::net::SocketAddr;

/// Name of the session cookie.
pub const COOKIE_NAME: &str = "bandmap_session";
/// Session lifetime (12 h).
pub const SESSION_SECONDS: i64 = 43_200;

/// Claims of a session token.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Claims {
    /// Username.
    pub sub: String,
    /// Issued at (seconds).
    pub iat: i64,
    /// Expiry (seconds).
    pub exp: i64,
    /// Session generation of the account at login (0 for tokens issued before issue 18).
    #[serde(default, rename = "gen")]
    pub generation: i64,
}

/// Signs a session token for `username` under its session `generation`, valid from `now`
/// for [`SESSION_SECONDS`].
pub fn issue_token(
    secret: &[u8],
    username: &str,
    generation: i64,
    now: DateTime<Utc>,
) -> Result<String, ApiError> {
    crate::jwt_crypto::install();
    let claims = Claims {
        sub: username.to_string(),
        iat: now.timestamp(),
        exp: now.timestamp() + SESSION_SECONDS,
        generation,
    };
    jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &claims,
        &EncodingKey::from_secret(secret),
    )
    .map_err(ApiError::internal)
}

/// Verifies a token: HS256 only, signature, expiry against `now`.
pub fn verify_token(secret: &[u8], token: &str, now: DateTime<Utc>) -> Result<Claims, ApiError> {
    crate::jwt_crypto::install();
    let unauthorized = || ApiError::Unauthorized("invalid or expired session".into());
    if !token.is_ascii() || token.len() > 4096 {
        return Err(unauthorized());
    }
    let mut validation = Validation::new(Algorithm::HS256);
    // Expiry is checked against the injectable clock below, not the system time.
    validation.validate_exp = false;
    validation.required_spec_claims.clear();
    let data =
        jsonwebtoken::decode::<Claims>(token, &DecodingKey::from_secret(secret), &validation)
            .map_err(|_| unauthorized())?;
    if data.claims.exp <= now.timestamp() {
        return Err(unauthorized());
    }
    Ok(data.claims)
}

/// The session cookie value from a Cookie header (None when absent or not visible ASCII).
pub fn session_cookie(parts: &Parts) -> Option<String> {
    parts.headers.get_all(header::COOKIE).iter().find_map(|v| {
        let v = v.to_str().ok()?;
        v.split(';').find_map(|kv| {
            let (k, val) = kv.trim().split_once('=')?;
            (k == COOKIE_NAME).then(|| val.to_string())
        })
    })
}

/// An authenticated admin, extracted from the session cookie.
#[derive(Debug, Clone)]
pub struct AdminSession {
    /// The admin's username.
    pub username: String,
    /// Client address (proxy headers trusted per `TRUST_PROXY`).
    pub ip: Option<String>,
}

impl FromRequestParts<AppState> for AdminSession {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let invalid = || ApiError::Unauthorized("invalid or expired session".into());
        let admin = &state.config.admin;
        let Some(secret) = admin.jwt_secret.as_ref() else {
            return Err(invalid());
        };
        let token =
            session_cookie(parts).ok_or_else(|| ApiError::Unauthorized("no session".into()))?;
        let claims = verify_token(secret.expose_secret().as_bytes(), &token, state.clock.now())?;
        // Only the account the settings seed is an admin (issue 31): with `ADMIN_SEED_*`
        // removed, or naming another account, a token of the old one no longer opens
        // anything, although its row and its signing secret are still there.
        let seeded = admin.seed_password.is_some() || admin.seed_password_hash.is_some();
        if !seeded || admin.seed_username.as_deref() != Some(claims.sub.as_str()) {
            return Err(invalid());
        }
        match bandmap_db::admin_users::session_generation(&state.pool, &claims.sub).await? {
            None => return Err(ApiError::Unauthorized("unknown account".into())),
            Some(current) if current != claims.generation => {
                return Err(ApiError::Unauthorized("session ended; log in again".into()));
            }
            Some(_) => {}
        }
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0);
        let ip = client_ip(
            &parts.headers,
            peer,
            ProxyTrust::from_config(&state.config.server),
        )
        .map(|ip| ip.to_string());
        Ok(AdminSession {
            username: claims.sub,
            ip,
        })
    }
}

/// Middleware of `/admin/api`: a valid session is required, and writes must declare a JSON
/// body and come from this site (CSRF defence besides SameSite).
pub async fn require_admin(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Result<Response, ApiError> {
    let (mut parts, body) = request.into_parts();
    let session = AdminSession::from_request_parts(&mut parts, &state).await?;
    let is_write = !matches!(parts.method, Method::GET | Method::HEAD | Method::OPTIONS);
    if is_write {
        require_json(&parts.headers, StatusCode::BAD_REQUEST)?;
        require_same_origin(&parts.headers)?;
    }
    parts.extensions.insert(session);
    Ok(next.run(Request::from_parts(parts, body)).await)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;

    const SECRET: &[u8] = b"0123456789abcdef0123456789abcdef";

    #[test]
    fn tokens_round_trip_and_expire() {
        let now = Utc::now();
        let t = issue_token(SECRET, "admin", 3, now).unwrap();
        assert_eq!(verify_token(SECRET, &t, now).unwrap().generation, 3);
        assert_eq!(verify_token(SECRET, &t, now).unwrap().sub, "admin");
        assert!(verify_token(SECRET, &t, now + Duration::seconds(SESSION_SECONDS + 1)).is_err());
        assert!(verify_token(b"another-secret-another-secret-xx", &t, now).is_err());
    }

    #[test]
    fn hostile_tokens_are_unauthorized_not_panics() {
        let now = Utc::now();
        for t in [
            "",
            "é.é.é",
            "a.b.c",
            "eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiIsImV4cCI6OTk5OTk5OTk5OX0.",
            "🦀🦀🦀",
        ] {
            assert!(
                matches!(verify_token(SECRET, t, now), Err(ApiError::Unauthorized(_))),
                "{t}"
            );
        }
    }
}
