//! Extractor of the client address (proxy headers trusted per `TRUST_PROXY` and
//! `TRUSTED_PROXIES`), for the
//! lockout and logs.

use crate::client_ip::{ProxyTrust, client_ip};
use crate::error::ApiError;
use crate::state::AppState;
use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use std::net::SocketAddr;

/// The client address as text, when known.
#[derive(Debug, Clone)]
pub struct ClientAddr(pub Option<String>);

impl FromRequestParts<AppState> for ClientAddr {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0);
        Ok(ClientAddr(
            client_ip(
                &parts.headers,
                peer,
                ProxyTrust::from_config(&state.config.server),
            )
            .map(|ip| ip.to_string()),
        ))
    }
}
