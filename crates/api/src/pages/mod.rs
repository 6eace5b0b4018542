//! The public pages rendered on the server (issue 28, docs/frontend.md "Town and band
//! pages"): `/town/{key}/{slug}`, `/band/{ma_id}`, their 404 page, `/sitemap.xml` and
//! `/robots.txt`. Plain HTML that works without JavaScript, every stored value escaped by
//! the template (`maud`), OpenGraph and Twitter tags for link previews. They query the
//! database per request, so they share the public rate limit of `/api/bands/{id}`. Each
//! written page carries an ETag of its bytes ([`validator`]).

pub mod band;
pub mod i18n;
pub mod layout;
pub mod map_page;
pub mod meta;
pub mod not_found;
pub mod origin;
pub mod sitemap;
pub mod slug;
pub mod town;
pub mod upstream_link;
pub mod validator;

use crate::state::AppState;
use axum::Router;
use axum::routing::get;

/// Routes of the pages (merged beside the API and the static files).
pub fn router(state: &AppState) -> Router<AppState> {
    Router::new()
        .route("/town/{key}", get(town::page))
        .route("/town/{key}/{slug}", get(town::page_with_slug))
        .route("/band/{ma_id}", get(band::page))
        .route("/sitemap.xml", get(sitemap::index))
        .route("/sitemap/{file}", get(sitemap::file))
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::public::rate_limit::limit,
        ))
        .route("/robots.txt", get(sitemap::robots))
        .layer(axum::middleware::from_fn(validator::validate))
}
