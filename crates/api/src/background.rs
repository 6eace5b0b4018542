//! Every background task of `serve`, started from here and nowhere else: the one refresh of
//! the read models (`bandmap_index::refresh`: LISTEN + poll, fanned out to the map index,
//! the public name search and the admin list's band search), the public rate limiter's
//! cleanup, the flush of refused login attempts and the daily retention prune. Each task's loop lives with what it keeps
//! fresh; this module only starts them. They end when `shutdown` fires.

use crate::state::AppState;
use tokio_util::sync::CancellationToken;

/// Starts the background tasks of `state` (called once by [`crate::server::serve_on`]).
pub fn start(state: &AppState, shutdown: CancellationToken) {
    tokio::spawn(bandmap_index::refresh::run(
        state.pool.clone(),
        state.read.refreshed(),
        shutdown.clone(),
    ));
    tokio::spawn(crate::guards::public_limiter::forget_idle_loop(
        state.guards.public_limiter.clone(),
        shutdown.clone(),
    ));
    tokio::spawn(crate::auth::lockout::flusher(
        state.pool.clone(),
        state.guards.login_gate.clone(),
        shutdown.clone(),
    ));
    tokio::spawn(crate::retention::run(
        state.pool.clone(),
        crate::retention::ages(&state.config.limits.retention),
        shutdown,
    ));
}
