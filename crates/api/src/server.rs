//! Assembling the router and running the server with graceful shutdown.

use crate::error::plain;
use crate::openapi::ApiDoc;
use crate::security_headers::SecurityHeaders;
use crate::state::AppState;
use crate::web::{self, WebFiles};
use axum::Router;
use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use std::future::IntoFuture;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
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
    let admin = crate::admin::router().layer(axum::middleware::from_fn_with_state(
        state.clone(),
        crate::auth::require_admin,
    ));
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .merge(crate::probes::router())
        .nest("/api", crate::public::router())
        .nest("/admin/api", admin)
        .nest("/admin/auth", crate::auth::router())
        .split_for_parts()
}

/// The whole application.
pub fn build_router(state: AppState) -> Router {
    let (api, mut doc) = api_routes(&state);
    doc.info.version = env!("CARGO_PKG_VERSION").to_string();
    let doc_json = serde_json::to_value(&doc).unwrap_or_default();
    let files = WebFiles::new(state.config.server.web_dir.clone())
        .with_tile_url(&state.config.server.map_tile_url);
    let security = Arc::new(SecurityHeaders::new(&state.config.server.map_tile_url));
    api.route(
        "/api/openapi.json",
        get(move || {
            let doc = doc_json.clone();
            async move { axum::Json(doc) }
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
    .layer(axum::middleware::from_fn(time_limit))
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
pub async fn serve_on(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: CancellationToken,
) -> Result<(), ServeError> {
    crate::public::start_background(&state, shutdown.clone());
    crate::auth::lockout::start_flusher(
        state.pool.clone(),
        state.login_gate.clone(),
        shutdown.clone(),
    );
    let app = build_router(state);
    let drain = shutdown.clone();
    let server = axum::serve(
        listener,
        app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(async move { shutdown.cancelled().await })
    .into_future();
    tokio::select! {
        done = server => done?,
        _ = async {
            drain.cancelled().await;
            tokio::time::sleep(DRAIN_LIMIT).await;
        } => tracing::warn!("stopping with requests still in flight after the drain limit"),
    }
    Ok(())
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
