//! The public API under `/api` (CONTRACT §7): map clusters from the in-memory index, band
//! cards and band search.

pub mod bands;
pub mod cache;
pub mod clusters;
pub mod countries;
pub mod export;
pub mod flows;
pub mod map_state;
pub mod params;
pub mod rate_limit;
pub mod search;

use crate::state::AppState;
use tokio_util::sync::CancellationToken;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Routes of the public API, mounted at `/api`. The card and the exports query the database
/// per request, and the search and the country counts may (while their in-memory copy is not
/// known fresh); a flows answer not yet kept costs milliseconds of work on the index (a new
/// filter, docs/map.md "Flows"): all are rate-limited per client ([`rate_limit`]). The
/// clusters are not: every answer costs microseconds.
pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        // The exports read the database per batch (issue 28): rate-limited like the card.
        .routes(routes!(export::export_geojson))
        .routes(routes!(export::export_csv))
        .routes(routes!(bands::band_card))
        .routes(routes!(search::search))
        .routes(routes!(countries::countries))
        .routes(routes!(flows::flows))
        .routes(routes!(flows::flow_bands))
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            rate_limit::limit,
        ))
        .routes(routes!(clusters::clusters))
        .merge(
            crate::import::router().layer(axum::middleware::from_fn_with_state(
                state.clone(),
                crate::writes::note_writes,
            )),
        )
}

/// Starts the map index refresh task (LISTEN + version poll; it also reloads the public
/// name search) for this process and the
/// rate limiter's cleanup, which end when `shutdown` fires, and the first load of the
/// admin list's band search.
pub fn start_background(state: &AppState, shutdown: CancellationToken) {
    let map = state.map.clone();
    tokio::spawn(rate_limit::forget_idle_loop(
        state.public_limiter.clone(),
        shutdown.clone(),
    ));
    tokio::spawn(map.run(state.pool.clone(), state.name_search.clone(), shutdown));
    // The admin list's search copy loads beside the map; until it is ready the list runs
    // in SQL.
    state.band_search.start_load(&state.pool);
}
