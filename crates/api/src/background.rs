//! Every background task of `serve`, started from here and nowhere else: the map index's
//! refresh (LISTEN + version poll; it also reloads the public name search), the first load
//! of the admin list's band search, the public rate limiter's cleanup, the flush of refused
//! login attempts and the daily retention prune. Each task's loop lives with what it keeps
//! fresh; this module only starts them. They end when `shutdown` fires.

use crate::state::AppState;
use tokio_util::sync::CancellationToken;

/// Starts the background tasks of `state` (called once by [`crate::server::serve_on`]).
pub fn start(state: &AppState, shutdown: CancellationToken) {
    tokio::spawn(state.map.clone().run(
        state.pool.clone(),
        state.name_search.clone(),
        shutdown.clone(),
    ));
    // The admin list's search copy loads beside the map; until it is ready the list runs
    // in SQL.
    state.band_search.start_load(&state.pool);
    tokio::spawn(crate::public::rate_limit::forget_idle_loop(
        state.public_limiter.clone(),
        shutdown.clone(),
    ));
    tokio::spawn(crate::auth::lockout::flusher(
        state.pool.clone(),
        state.login_gate.clone(),
        shutdown.clone(),
    ));
    tokio::spawn(crate::retention::run(
        state.pool.clone(),
        crate::retention::ages(&state.config.limits.retention),
        shutdown,
    ));
}
