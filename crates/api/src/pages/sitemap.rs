//! `GET /sitemap.xml` (a sitemap index), `GET /sitemap/towns-{n}.xml` and
//! `/sitemap/bands-{n}.xml` (40,000 URLs each; the first towns file also lists the map),
//! and `GET /robots.txt` pointing at the index. Absolute URLs on the public origin
//! (`PUBLIC_BASE_URL`).

use super::i18n::PageLang;
use super::not_found::{self, Missing};
use super::{band, origin, town};
use crate::error::ApiError;
use crate::extract::Path;
use crate::state::AppState;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use bandmap_db::pages::sitemap::{self, PAGE};
use std::fmt::Write;

const XML_HEAD: &str = r#"<?xml version="1.0" encoding="UTF-8"?>"#;
const NS: &str = "http://www.sitemaps.org/schemas/sitemap/0.9";

/// `text` escaped for XML character data.
fn xml(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

fn xml_response(body: String) -> Response {
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/xml; charset=utf-8"),
            ),
            (
                header::CACHE_CONTROL,
                HeaderValue::from_static("public, max-age=3600"),
            ),
        ],
        body,
    )
        .into_response()
}

fn files(count: i64) -> i64 {
    (count + PAGE - 1) / PAGE
}

/// The sitemap index.
pub async fn index(State(state): State<AppState>) -> Result<Response, ApiError> {
    let base = origin::public_base(&state.config);
    let towns = files(sitemap::count_towns(&state.public_pool).await?).max(1);
    let bands = files(sitemap::count_bands(&state.public_pool).await?);
    let mut out = format!("{XML_HEAD}\n<sitemapindex xmlns=\"{NS}\">\n");
    for (kind, n) in [("towns", towns), ("bands", bands)] {
        for i in 0..n {
            let _ = writeln!(
                out,
                "<sitemap><loc>{}</loc></sitemap>",
                xml(&format!("{base}/sitemap/{kind}-{i}.xml"))
            );
        }
    }
    out.push_str("</sitemapindex>\n");
    Ok(xml_response(out))
}

/// `towns-{n}.xml` or `bands-{n}.xml`.
pub async fn file(
    State(state): State<AppState>,
    PageLang(lang): PageLang,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    let parsed = name
        .strip_suffix(".xml")
        .and_then(|s| s.split_once('-'))
        .and_then(|(kind, n)| Some((kind, n.parse::<i64>().ok().filter(|&n| n >= 0)?)));
    let base = origin::public_base(&state.config);
    let mut urls: Vec<String> = Vec::new();
    match parsed {
        Some(("towns", n)) => {
            if n == 0 {
                urls.push(format!("{base}/"));
            }
            for t in sitemap::towns(&state.public_pool, n).await? {
                let name = t
                    .city
                    .as_deref()
                    .or(t.location_raw.as_deref())
                    .unwrap_or_default();
                urls.push(format!("{base}{}", town::path(t.key(), name)));
            }
            if n > 0 && urls.is_empty() {
                return Ok(not_found::page(lang, Missing::Sitemap));
            }
        }
        Some(("bands", n)) => {
            for (ma_id, _) in sitemap::bands(&state.public_pool, n).await? {
                urls.push(format!("{base}{}", band::path(ma_id)));
            }
            if urls.is_empty() {
                return Ok(not_found::page(lang, Missing::Sitemap));
            }
        }
        _ => return Ok(not_found::page(lang, Missing::Sitemap)),
    }
    let mut out = format!("{XML_HEAD}\n<urlset xmlns=\"{NS}\">\n");
    for u in urls {
        let _ = writeln!(out, "<url><loc>{}</loc></url>", xml(&u));
    }
    out.push_str("</urlset>\n");
    Ok(xml_response(out))
}

/// `robots.txt`: everything public may be crawled but the admin console, the API and the
/// embed (a copy of the map); the sitemap index is named.
pub async fn robots(State(state): State<AppState>) -> Response {
    let base = origin::public_base(&state.config);
    let body = format!(
        "User-agent: *\nAllow: /\nDisallow: /admin/\nDisallow: /api/\nDisallow: /embed\n\
         Sitemap: {base}/sitemap.xml\n"
    );
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/plain; charset=utf-8"),
            ),
            (
                header::CACHE_CONTROL,
                HeaderValue::from_static("public, max-age=3600"),
            ),
        ],
        body,
    )
        .into_response()
}
