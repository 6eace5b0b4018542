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
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// The routes of the public API that are mounted at the root with their whole path, not
/// nested under `/api`: `/api/clusters`. A nested route pays for the nesting on every
/// request (axum rewrites the URI without its prefix and records the nested path: ~0.5 µs
/// of the clusters' ~2.4 µs over `/healthz`, docs/performance.md "Where the clusters' time
/// over /healthz went"); the clusters are the map's hottest path.
pub fn root_routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(clusters::clusters))
}

/// Routes of the public API, mounted at `/api` (besides [`root_routes`]). The card and the exports query the database
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
        .merge(
            crate::import::router().layer(axum::middleware::from_fn_with_state(
                state.clone(),
                crate::writes::note_writes,
            )),
        )
}
