//! The admin API under `/admin/api` (CONTRACT §6). Every route requires an admin session
//! (the `require_admin` layer); handlers take [`crate::auth::AdminSession`] for the audit.
//! One file per resource family.

pub mod band_history;
pub mod band_unlock;
pub mod bands;
pub mod charts;
pub mod common;
pub mod gazetteer;
pub mod geocoding;
pub mod jobs;
pub mod locations;
pub mod monitoring;
pub mod trigger_follow;

use crate::state::AppState;
use utoipa_axum::router::OpenApiRouter;

/// Routes of the admin API, mounted at `/admin/api`. The session layer is applied by the
/// server so it covers every route registered here.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(bands::router())
        .merge(locations::router())
        .merge(geocoding::router())
        .merge(monitoring::router())
        .merge(jobs::router())
        .merge(band_unlock::router())
        .merge(band_history::router())
        .merge(charts::router())
        .merge(gazetteer::router())
        .merge(trigger_follow::router())
}
