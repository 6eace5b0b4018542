//! The 404 page of the public pages (an unknown or malformed town key or band id): HTML
//! like the page the visitor asked for, `noindex`, with links home.

use super::layout;
use axum::http::StatusCode;
use axum::response::Response;
use maud::{DOCTYPE, html};

/// The 404 answer; `what` says what was not found (`Ce lieu`, `Ce groupe`).
pub fn page(what: &str) -> Response {
    let markup = html! {
        (DOCTYPE)
        html lang="fr" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="robots" content="noindex";
                meta name="description" content="Page introuvable sur Band Map.";
                title { "Introuvable — Band Map" }
                link rel="icon" href="/favicon.svg" type="image/svg+xml";
                link rel="stylesheet" href="/map/theme.css";
                link rel="stylesheet" href="/map/pages.css";
            }
            body class="page" {
                header class="bar page-bar" {
                    a class="title" href="/" { img class="logo" src="/favicon.svg" alt="" width="26" height="26"; " Band Map" }
                }
                main class="page-main" {
                    h1 { "Introuvable" }
                    p { (what) " n’existe pas sur Band Map, ou n’a pas encore de point sur la carte." }
                    p { a href="/" { "Retour à la carte" } }
                }
                footer class="page-footer" { (layout::credits()) }
            }
        }
    };
    layout::respond(StatusCode::NOT_FOUND, markup)
}
