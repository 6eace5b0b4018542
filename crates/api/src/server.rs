//! Assembling the router and running the server with graceful shutdown.

use crate::client_ip::ProxyTrust;
use crate::connections::{AddressSlots, PeerConnections};
use crate::error::plain;
use crate::openapi::ApiDoc;
use crate::security_headers::SecurityHeaders;
use crate::state::AppState;
use crate::web::{self, WebFiles};
use axum::Router;
use axum::extract::{ConnectInfo, DefaultBodyLimit, Request};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use bandmap_config::HttpLimits;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use ipnet::IpNet;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;
use tokio_io_timeout::TimeoutStream;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;
use tower_http::trace::{DefaultMakeSpan, DefaultOnResponse, TraceLayer};
use tracing::Level;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;

/// Longest time a request may take before the server answers 503 itself (a JSON error, like
/// every other answer).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// After a shutdown signal, how long requests in flight may still run before the server
/// stops regardless (SIGTERM must end the process even with a hung client).
pub const DRAIN_LIMIT: Duration = Duration::from_secs(20);

/// Largest request body of the admin API (its writes are small JSON documents).
pub const ADMIN_BODY_LIMIT: usize = 256 * 1024;

/// Largest request body of the authentication area (a login is two short strings).
pub const AUTH_BODY_LIMIT: usize = 8 * 1024;

/// Why the server stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The listening address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// Address.
        addr: SocketAddr,
        /// Cause.
        #[source]
        source: std::io::Error,
    },
    /// The server loop failed.
    #[error("server failed: {0}")]
    Io(#[from] std::io::Error),
}

/// The API routes and their OpenAPI document. `state` is needed by the admin session layer.
pub fn api_routes(state: &AppState) -> (Router<AppState>, utoipa::openapi::OpenApi) {
    // Writes are noted inside the session check: a refused request never counts.
    let admin = crate::admin::router()
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::writes::note_writes,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::auth::require_admin,
        ));
    // Body limits per area (a larger body is a 413 JSON error before any work); the import
    // sets its own.
    let admin = admin.layer(DefaultBodyLimit::max(ADMIN_BODY_LIMIT));
    let auth = crate::auth::router().layer(DefaultBodyLimit::max(AUTH_BODY_LIMIT));
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .merge(crate::probes::router())
        .merge(crate::public::root_routes())
        .nest("/api", crate::public::router(state))
        .nest("/admin/api", admin)
        .nest("/admin/auth", auth)
        .split_for_parts()
}

/// The whole application.
pub fn build_router(state: AppState) -> Router {
    let (api, mut doc) = api_routes(&state);
    doc.info.version = env!("CARGO_PKG_VERSION").to_string();
    // Serialised once: each request answers the same bytes (a client asking for the
    // document in a loop costs a copy of a reference, not a serialisation).
    let doc_json = axum::body::Bytes::from(serde_json::to_vec(&doc).unwrap_or_default());
    let files = WebFiles::new(state.config.server.web_dir.clone())
        .with_tile_url(&state.config.server.map_tile_url)
        .with_public_base(&crate::pages::origin::public_base(&state.config));
    let security = Arc::new(SecurityHeaders::new(&state.config.server.map_tile_url));
    let tarpit = state.guards.tarpit.clone();
    let body_timeout = state.config.limits.http.body_timeout;
    let pages = crate::pages::router(&state);
    api.merge(pages)
        .route(
            "/api/openapi.json",
            get(move || {
                let doc = doc_json.clone();
                async move {
                    (
                        [(
                            axum::http::header::CONTENT_TYPE,
                            axum::http::HeaderValue::from_static("application/json"),
                        )],
                        doc,
                    )
                }
            }),
        )
        .with_state(state)
        .merge(web::router(files))
        .fallback(|| async { plain(StatusCode::NOT_FOUND, "not_found", "no such endpoint") })
        .method_not_allowed_fallback(|| async {
            plain(
                StatusCode::METHOD_NOT_ALLOWED,
                "bad_request",
                "method not allowed on this endpoint",
            )
        })
        .layer(CompressionLayer::new())
        .layer(axum::middleware::from_fn_with_state(
            security,
            crate::security_headers::apply,
        ))
        .layer(axum::middleware::from_fn_with_state(
            body_timeout,
            crate::body_deadline::limit_body_time,
        ))
        .layer(axum::middleware::from_fn(time_limit))
        .layer(axum::middleware::from_fn_with_state(
            tarpit,
            crate::guards::tarpit::hold_refusals,
        ))
        .layer(CatchPanicLayer::custom(|_panic| -> Response {
            tracing::error!("handler panicked");
            plain(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                "internal error",
            )
            .into_response()
        }))
        .layer(axum::middleware::from_fn(bandmap_metrics::http::track))
        .layer(
            // One line per request at INFO, so the default `RUST_LOG=info` shows traffic.
            TraceLayer::new_for_http()
                .make_span_with(DefaultMakeSpan::new().level(Level::INFO))
                .on_response(DefaultOnResponse::new().level(Level::INFO)),
        )
}

/// Answers a JSON 503 when the handler runs past [`REQUEST_TIMEOUT`] (the handler's future
/// is dropped, which cancels its database work). The bulk import has its own, longer limit
/// (`IMPORT_TIME_LIMIT_SECS`, [`crate::import`]).
async fn time_limit(req: Request, next: Next) -> Response {
    if req.uri().path() == crate::import::PATH {
        return next.run(req).await;
    }
    match tokio::time::timeout(REQUEST_TIMEOUT, next.run(req)).await {
        Ok(response) => response,
        Err(_) => {
            tracing::warn!("request timed out");
            plain(
                StatusCode::SERVICE_UNAVAILABLE,
                "internal",
                "the request took too long",
            )
        }
    }
}

/// Serves on an already bound listener until `shutdown` fires.
///
/// The server's background tasks (map refresh, rate-limit cleanup, retention) live exactly
/// as long as this call: they stop when it returns or is dropped, so a restart of `serve`
/// under `bandmap all`'s supervisor never leaves the previous run's tasks behind.
pub async fn serve_on(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: CancellationToken,
) -> Result<(), ServeError> {
    let background = shutdown.child_token();
    let _stop_background = background.clone().drop_guard();
    crate::background::start(&state, background);
    let limits = state.config.limits.http;
    let server = &state.config.server;
    let proxies = if server.trust_proxy {
        server.trusted_proxies.clone()
    } else {
        Vec::new()
    };
    let app = build_router(state);
    run(listener, app, limits, proxies, shutdown).await;
    Ok(())
}

/// The accept loop (issues 18 and 31, server limits): at most `limits.max_connections`
/// connections at once (the next ones wait in the listen backlog until one ends), at most
/// `limits.max_connections_per_address` of them from one client address unless it is a
/// trusted proxy (the next ones are closed at once, [`crate::connections`]); a client that
/// does not send a request's headers within `limits.header_read_timeout` — a slow client,
/// or a keep-alive connection left idle — is disconnected, and so is one that stops
/// reading its answers for `limits.write_timeout` (every write must make progress within
/// it). The body has its own deadline ([`crate::body_deadline`]). HTTP/1.1 only: browsers reach
/// the service over HTTP/1.1 or through a proxy, and HTTP/2's cleartext prior-knowledge
/// mode would only add a path these limits do not cover. On `shutdown`, idle connections
/// close at once and requests in flight get [`DRAIN_LIMIT`] to finish.
async fn run(
    listener: tokio::net::TcpListener,
    app: Router,
    limits: HttpLimits,
    proxies: Vec<IpNet>,
    shutdown: CancellationToken,
) {
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let per_address = AddressSlots::new(limits.max_connections_per_address);
    let graceful = GracefulShutdown::new();
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout);
    loop {
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => match slot {
                Ok(slot) => slot,
                Err(_) => break,
            },
            _ = shutdown.cancelled() => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors and the like: pause rather than spin.
                    tracing::warn!(error = %e, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            _ = shutdown.cancelled() => break,
        };
        let trust = ProxyTrust {
            enabled: true,
            proxies: &proxies,
        };
        let (peer_info, address_slot) = if trust.trusts(peer.ip()) {
            (PeerConnections::proxy(peer.ip()), None)
        } else {
            let Some(taken) = per_address.try_take(peer.ip()) else {
                // Closed before a byte is read: the address holds its share already.
                bandmap_metrics::http::connection_refused_per_address();
                drop(stream);
                continue;
            };
            (
                PeerConnections::capped(peer.ip(), Arc::clone(&per_address)),
                Some(taken),
            )
        };
        let _ = stream.set_nodelay(true);
        let mut stream = TimeoutStream::new(stream);
        stream.set_write_timeout(Some(limits.write_timeout));
        let service = app
            .clone()
            .map_request(move |mut req: Request<hyper::body::Incoming>| {
                req.extensions_mut().insert(ConnectInfo(peer));
                req.extensions_mut().insert(peer_info.clone());
                req
            });
        let connection = graceful.watch(http.serve_connection(
            TokioIo::new(Box::pin(stream)),
            TowerToHyperService::new(service),
        ));
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "connection ended with an error");
            }
            drop(address_slot);
            drop(slot);
        });
    }
    drop(listener);
    tokio::select! {
        _ = graceful.shutdown() => {}
        _ = tokio::time::sleep(DRAIN_LIMIT) => {
            tracing::warn!("stopping with requests still in flight after the drain limit")
        }
    }
}

/// Binds `BIND_ADDR` and serves until `shutdown` fires.
pub async fn serve(state: AppState, shutdown: CancellationToken) -> Result<(), ServeError> {
    let addr = state.config.server.bind_addr;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| ServeError::Bind { addr, source })?;
    tracing::info!(%addr, "listening");
    serve_on(listener, state, shutdown).await
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use axum::body::Body;
    use tower::ServiceExt;

    // The paused clock auto-advances while every task waits, so the 30 s limit passes at
    // once and deterministically.
    #[tokio::test(start_paused = true)]
    async fn a_request_past_the_time_limit_is_a_json_503() {
        let app: Router = Router::new()
            .route(
                "/slow",
                get(|| async {
                    tokio::time::sleep(REQUEST_TIMEOUT * 2).await;
                    "late"
                }),
            )
            .route("/fast", get(|| async { "ok" }))
            .layer(axum::middleware::from_fn(time_limit));
        let slow = app
            .clone()
            .oneshot(Request::get("/slow").body(Body::empty()).unwrap())
            .await
            .unwrap();
        assert_eq!(slow.status(), StatusCode::SERVICE_UNAVAILABLE);
        let bytes = axum::body::to_bytes(slow.into_body(), 1 << 16)
            .await
            .unwrap();
        let body: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(body["error"]["code"], "internal");
        let fast = app
            .oneshot(Request::get("/fast").body(Body::empty()).unwrap())
            .await
            .unwrap();
        assert_eq!(fast.status(), StatusCode::OK);
    }
}
