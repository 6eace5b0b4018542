//! Assembling the router and running the server with graceful shutdown.

use crate::error::plain;
use crate::openapi::ApiDoc;
use crate::state::AppState;
use crate::web::{self, WebFiles};
use axum::Router;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use bandmap_health::Shutdown;
use std::net::SocketAddr;
use std::time::Duration;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;

/// Longest time a request may take before the server answers 408 itself.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

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
    let files = WebFiles::new(state.config.server.web_dir.clone());
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
    .layer(CompressionLayer::new())
    .layer(TimeoutLayer::with_status_code(
        StatusCode::REQUEST_TIMEOUT,
        REQUEST_TIMEOUT,
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
    .layer(TraceLayer::new_for_http())
}

/// Serves on an already bound listener until `shutdown` fires.
pub async fn serve_on(
    listener: tokio::net::TcpListener,
    state: AppState,
    mut shutdown: Shutdown,
) -> Result<(), ServeError> {
    crate::public::start_background(&state, shutdown.clone());
    let app = build_router(state);
    axum::serve(
        listener,
        app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(async move { shutdown.cancelled().await })
    .await?;
    Ok(())
}

/// Binds `BIND_ADDR` and serves until `shutdown` fires.
pub async fn serve(state: AppState, shutdown: Shutdown) -> Result<(), ServeError> {
    let addr = state.config.server.bind_addr;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| ServeError::Bind { addr, source })?;
    tracing::info!(%addr, "listening");
    serve_on(listener, state, shutdown).await
}
