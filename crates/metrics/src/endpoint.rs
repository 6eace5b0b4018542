//! `GET /metrics` on its own listener (`METRICS_ADDR`): the Prometheus text format, the
//! database gauges refreshed first. Nothing else is served there.

use crate::db_gauges::DbGauges;
use crate::recorder::{MetricsError, install, render};
use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;
use bandmap_db::PgPool;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// Content type of the Prometheus text exposition format.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// The router of the metrics listener.
pub fn router(pool: PgPool) -> Router {
    Router::new()
        .route("/metrics", get(scrape))
        .fallback(|| async {
            (
                StatusCode::NOT_FOUND,
                axum::Json(serde_json::json!({
                    "error": {"code": "not_found", "message": "only GET /metrics is served here"}
                })),
            )
        })
        .with_state(Arc::new(DbGauges::new(pool)))
}

async fn scrape(State(gauges): State<Arc<DbGauges>>) -> impl IntoResponse {
    gauges.refresh().await;
    ([(header::CONTENT_TYPE, CONTENT_TYPE)], render())
}

/// Serves the metrics router on an already bound listener until `shutdown` fires. The
/// recorder must be installed ([`install`]).
pub async fn serve(
    listener: tokio::net::TcpListener,
    pool: PgPool,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    axum::serve(listener, router(pool))
        .with_graceful_shutdown(async move { shutdown.cancelled().await })
        .await
}

/// Installs the recorder, binds `addr` and serves `/metrics` in the background until
/// `shutdown`. A bind failure is returned (the operator asked for this address); a later
/// server failure is logged.
pub async fn start(
    addr: SocketAddr,
    pool: PgPool,
    shutdown: CancellationToken,
) -> Result<SocketAddr, MetricsError> {
    install()?;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| MetricsError::Bind { addr, source })?;
    let bound = listener.local_addr().unwrap_or(addr);
    tracing::info!(addr = %bound, "metrics listening (GET /metrics)");
    tokio::spawn(async move {
        if let Err(e) = serve(listener, pool, shutdown).await {
            tracing::error!(error = %e, "metrics listener failed");
        }
    });
    Ok(bound)
}
