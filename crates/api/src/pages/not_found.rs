//! The 404 page of the public pages (an unknown or malformed town key or band id): HTML
//! like the page the visitor asked for, in its language, `noindex`, with links home.

use super::i18n::Lang;
use super::layout;
use axum::http::StatusCode;
use axum::response::Response;

/// What was not found: the catalogue key of the page's sentence.
#[derive(Debug, Clone, Copy)]
pub enum Missing {
    /// A town.
    Town,
    /// A band.
    Band,
    /// A sitemap file.
    Sitemap,
}

/// The 404 answer.
pub fn page(lang: Lang, what: Missing) -> Response {
    let key = match what {
        Missing::Town => "notfound.town",
        Missing::Band => "notfound.band",
        Missing::Sitemap => "notfound.sitemap",
    };
    layout::respond(StatusCode::NOT_FOUND, layout::not_found(lang, key))
}
