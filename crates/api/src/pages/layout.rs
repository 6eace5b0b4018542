//! The shell of every server-rendered page: head (preview tags, the pages' stylesheet),
//! a header linking home with the language switch, the page's content and a footer with
//! the data credits. No script: the pages work without JavaScript.

use super::i18n::Lang;
use super::meta::{self, PageMeta};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use maud::{DOCTYPE, Markup, html};

/// Credits of the data every page shows (GeoNames is CC BY 4.0; the catalogue is the
/// upstream's).
pub fn credits(lang: Lang) -> Markup {
    html! {
        p class="credits" {
            (lang.t("credits.places")) " : " a href="https://www.geonames.org/" { "GeoNames" } " (CC BY 4.0) · "
            (lang.t("credits.bands")) " : " a href="https://www.metal-archives.com/" { "Encyclopaedia Metallum" }
            " · " a href="/" { "Band Map" }
        }
    }
}

/// The header: home link and, for a translated page at `path`, the language switch.
pub fn header(lang: Lang, path: Option<&str>) -> Markup {
    html! {
        header class="bar page-bar" {
            a class="title" href="/" {
                img class="logo" src="/favicon.svg" alt="" width="26" height="26";
                " Band Map"
            }
            @if let Some(path) = path {
                nav class="langs" aria-label=(lang.t("lang.switch")) {
                    @for l in Lang::ALL {
                        @if l == lang {
                            a href={ (path) (l.query()) } hreflang=(l.code()) lang=(l.code()) aria-current="page" { (l.t("lang.name")) }
                        } @else {
                            a href={ (path) (l.query()) } hreflang=(l.code()) lang=(l.code()) { (l.t("lang.name")) }
                        }
                    }
                }
            }
        }
    }
}

/// The head tags every page shares.
fn common_head() -> Markup {
    html! {
        meta charset="utf-8";
        meta name="viewport" content="width=device-width, initial-scale=1";
        meta name="color-scheme" content="dark";
        meta name="theme-color" content="#0e1116";
        link rel="icon" href="/favicon.svg" type="image/svg+xml";
        link rel="stylesheet" href="/map/theme.css";
        link rel="stylesheet" href="/map/pages.css";
    }
}

/// A whole page.
pub fn page(meta: &PageMeta, base: &str, content: Markup) -> Markup {
    let lang = meta.lang;
    html! {
        (DOCTYPE)
        html lang=(lang.code()) {
            head {
                (common_head())
                title { (meta.title) }
                (meta::tags(meta, base))
            }
            body class="page" {
                (header(lang, meta.translated.then_some(meta.path.as_str())))
                main class="page-main" { (content) }
                footer class="page-footer" { (credits(lang)) }
            }
        }
    }
}

/// The 404 page in `lang`; `what` is the catalogue key of its sentence.
pub fn not_found(lang: Lang, what: &str) -> Markup {
    html! {
        (DOCTYPE)
        html lang=(lang.code()) {
            head {
                (common_head())
                meta name="robots" content="noindex";
                meta name="description" content=(lang.t("notfound.description"));
                title { (lang.t("notfound.title")) }
            }
            body class="page" {
                (header(lang, None))
                main class="page-main" {
                    h1 { (lang.t("notfound.heading")) }
                    p { (lang.t(what)) }
                    p { a href="/" { (lang.t("notfound.back")) } }
                }
                footer class="page-footer" { (credits(lang)) }
            }
        }
    }
}

/// `markup` as an HTML answer with `status`. Pages are revalidated on each visit (the data
/// moves with every crawl) and vary with the browser's languages.
pub fn respond(status: StatusCode, markup: Markup) -> Response {
    let mut res = (status, markup.into_string()).into_response();
    let h = res.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert(header::VARY, HeaderValue::from_static("Accept-Language"));
    res
}
