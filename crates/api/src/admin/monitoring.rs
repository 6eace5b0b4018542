//! Admin API: monitoring — activity and logs (`activity`), live view, health and crawl
//! checkpoints (`status`), catalogue statistics and the enrichment queue (`catalogue`).
//! The response shapes and parameter parsing it shares with the other admin modules are in
//! [`crate::admin::common`].

mod activity;
mod catalogue;
mod status;

use crate::state::AppState;
use utoipa_axum::{router::OpenApiRouter, routes};

/// Routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(activity::activity))
        .routes(routes!(activity::logs))
        .routes(routes!(status::live))
        .routes(routes!(status::health))
        .routes(routes!(status::checkpoints))
        .routes(routes!(catalogue::stats))
        .routes(routes!(catalogue::queue))
}
