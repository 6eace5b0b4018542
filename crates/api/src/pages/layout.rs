//! The shell of every server-rendered page: head (preview tags, the pages' stylesheet),
//! a header linking home, the page's content and a footer with the data credits. No
//! script: the pages work without JavaScript.

use super::meta::{self, PageMeta};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use maud::{DOCTYPE, Markup, html};

/// Credits of the data every page shows (GeoNames is CC BY 4.0; the catalogue is the
/// upstream's).
pub fn credits() -> Markup {
    html! {
        p class="credits" {
            "Lieux : " a href="https://www.geonames.org/" { "GeoNames" } " (CC BY 4.0) · "
            "Groupes : " a href="https://www.metal-archives.com/" { "Encyclopaedia Metallum" }
            " · " a href="/" { "Band Map" }
        }
    }
}

/// A whole page.
pub fn page(meta: &PageMeta, base: &str, content: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="fr" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="color-scheme" content="dark";
                meta name="theme-color" content="#0e1116";
                title { (meta.title) }
                (meta::tags(meta, base))
                link rel="icon" href="/favicon.svg" type="image/svg+xml";
                link rel="stylesheet" href="/map/theme.css";
                link rel="stylesheet" href="/map/pages.css";
            }
            body class="page" {
                header class="bar page-bar" {
                    a class="title" href="/" {
                        img class="logo" src="/favicon.svg" alt="" width="26" height="26";
                        " Band Map"
                    }
                }
                main class="page-main" { (content) }
                footer class="page-footer" { (credits()) }
            }
        }
    }
}

/// `markup` as an HTML answer with `status`. Pages are revalidated on each visit (the data
/// moves with every crawl).
pub fn respond(status: StatusCode, markup: Markup) -> Response {
    let mut res = (status, markup.into_string()).into_response();
    let h = res.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    res
}
