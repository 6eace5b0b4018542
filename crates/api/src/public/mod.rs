//! The public API under `/api` (CONTRACT §7): map clusters from the in-memory index, band
//! cards and band search.

pub mod bands;
pub mod cache;
pub mod clusters;
pub mod countries;
pub mod flows;
pub mod map_state;
pub mod params;
pub mod rate_limit;
pub mod search;

use crate::state::AppState;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Routes of the public API, mounted at `/api`. The card queries the database per request,
/// and the search and the country counts may (while their in-memory copy is not known
/// fresh): all three are rate-limited per client ([`rate_limit`]).
pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(bands::band_card))
        .routes(routes!(search::search))
        .routes(routes!(countries::countries))
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            rate_limit::limit,
        ))
        .routes(routes!(clusters::clusters))
        .routes(routes!(flows::flows))
        .routes(routes!(flows::flow_bands))
        .merge(
            crate::import::router().layer(axum::middleware::from_fn_with_state(
                state.clone(),
                crate::writes::note_writes,
            )),
        )
}
