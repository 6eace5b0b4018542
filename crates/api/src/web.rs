//! The static front end, same-origin: `/` is the public map page, `/admin/` the admin
//! console, `/map/*`, `/admin/*` and `/vendor/*` their assets, `/lib/*` the modules both
//! import (DOM and fetch helpers), `/favicon.svg` the icon of both. Files are embedded in the
//! binary from `web/` (read from disk in debug builds), or served from `WEB_DIR` when set.
//! `build.rs` re-embeds when `web/` changes and refuses a release build without
//! `web/vendor/` (run `scripts/setup-web.sh` first).
//!
//! Every file answers with an ETag of its content (`If-None-Match` → 304: a page reload
//! revalidates its modules instead of downloading them again), and text files in the
//! client's coding, compressed once and kept ([`crate::encoded`]). The map page and the
//! embed, written from `map/index.html` per language and parameters, are answered the same
//! way (`page_response`).

use crate::encoded::{Coding, EncodedBodies};
use crate::pages::map_page::MapLang;
use crate::public::cache;
use axum::Router;
use axum::body::Body;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use rust_embed::Embed;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Embed)]
#[folder = "../../web/"]
#[include = "admin/**"]
#[include = "map/**"]
#[include = "lib/**"]
#[include = "vendor/**"]
#[include = "favicon.svg"]
#[exclude = "**/node_modules/**"]
struct Assets;

/// Where files come from, and the tile URL written into the map page.
#[derive(Clone, Debug)]
pub struct WebFiles {
    dir: Option<Arc<PathBuf>>,
    tile_url: Option<Arc<str>>,
    /// The public origin written into the map page's preview tags (issue 28).
    public_base: Option<Arc<str>>,
    /// Whether the tile server answers (`/map/tiles-status.json`, issue 28).
    tiles: Option<Arc<crate::tile_probe::TileProbe>>,
    /// The text files compressed once, by ETag.
    encoded: Arc<EncodedBodies>,
    /// The ETags of the pages written from the map page ([`page_response`]), by what they
    /// were written from.
    page_etags: Arc<quick_cache::sync::Cache<u64, Arc<str>>>,
}

/// Most page ETags remembered (each a few dozen bytes; the embed's parameters make the
/// variants, so the bound matters, not the size).
const PAGE_ETAGS: usize = 4096;

/// A file's bytes and its ETag.
struct File {
    bytes: Bytes,
    etag: String,
}

impl WebFiles {
    /// Embedded files, or a folder on disk.
    pub fn new(dir: Option<PathBuf>) -> Self {
        Self {
            dir: dir.map(Arc::new),
            tile_url: None,
            public_base: None,
            tiles: None,
            encoded: Arc::default(),
            page_etags: Arc::new(quick_cache::sync::Cache::new(PAGE_ETAGS)),
        }
    }

    /// Serves the map page with this tile URL template (`MAP_TILE_URL`) in its
    /// `bandmap-tiles` meta tag.
    pub fn with_tile_url(mut self, url: &str) -> Self {
        self.tile_url = Some(Arc::from(url));
        self.tiles = Some(Arc::new(crate::tile_probe::TileProbe::new(url)));
        self
    }

    /// Writes this public origin into the map page's preview tags and embed snippet.
    pub fn with_public_base(mut self, base: &str) -> Self {
        self.public_base = Some(Arc::from(base));
        self
    }

    /// The file at `path` with its ETag: the embedded file's SHA-256 (computed when the
    /// binary was built), or a hash of the bytes read from `WEB_DIR`.
    fn file(&self, path: &str) -> Option<File> {
        if path
            .split('/')
            .any(|seg| seg == ".." || seg.starts_with('.'))
        {
            return None;
        }
        match &self.dir {
            Some(dir) => {
                let bytes = std::fs::read(dir.join(path)).ok()?;
                let etag = cache::content_etag('s', &bytes);
                Some(File {
                    bytes: Bytes::from(bytes),
                    etag,
                })
            }
            None => {
                let file = Assets::get(path)?;
                let digest = file.metadata.sha256_hash();
                let etag = format!("W/\"s{}\"", hex16(&digest));
                let bytes = match file.data {
                    std::borrow::Cow::Borrowed(b) => Bytes::from_static(b),
                    std::borrow::Cow::Owned(v) => Bytes::from(v),
                };
                Some(File { bytes, etag })
            }
        }
    }
}

/// The first eight bytes of a digest in hex.
fn hex16(digest: &[u8]) -> String {
    use std::fmt::Write as _;
    digest.iter().take(8).fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// Routes serving the front end (merged last, after the API routes).
pub fn router(files: WebFiles) -> Router {
    Router::new()
        .route("/", get(map_index))
        .route(crate::security_headers::EMBED_PATH, get(embed_index))
        .route(
            "/admin",
            get(|| async { axum::response::Redirect::permanent("/admin/") }),
        )
        .route("/admin/", get(admin_index))
        // Any other method on an admin path: a JSON 404 (e.g. the removed POST endpoints).
        .route("/admin/{*path}", get(admin_asset).fallback(not_found))
        .route(TILES_STATUS_PATH, get(tiles_status))
        .route("/map/{*path}", get(asset))
        .route("/lib/{*path}", get(asset))
        .route("/vendor/{*path}", get(asset))
        .route("/favicon.svg", get(favicon))
        .with_state(files)
}

/// Where the map page asks whether the tile server answers. A static file of that name
/// (`web/map/tiles-status.json`, `unknown`) answers on a static host or the dev mock server;
/// this server answers from its probe (crate::tile_probe).
const TILES_STATUS_PATH: &str = "/map/tiles-status.json";

async fn tiles_status(State(files): State<WebFiles>, headers: HeaderMap, uri: Uri) -> Response {
    let Some(probe) = files.tiles.as_deref() else {
        return asset(State(files), headers, uri).await;
    };
    let body = crate::tile_probe::TileStatusBody {
        tiles: probe.status().await,
    };
    body_response(
        "application/json",
        "no-cache",
        Body::from(serde_json::to_vec(&body).unwrap_or_default()),
    )
}

/// The map page's file, which `/` and `/embed` are written from.
const MAP_PAGE: &str = "map/index.html";

/// The map page's file with the tile URL written in.
fn map_page(files: &WebFiles, bytes: &[u8]) -> String {
    let page = String::from_utf8_lossy(bytes);
    match files.tile_url.as_deref() {
        Some(url) => with_tile_url(&page, url),
        None => page.into_owned(),
    }
}

/// What a page written from the map page's file is written from: the file (its ETag),
/// what the server writes into it (tile URL, public origin) and `variant` (what the request
/// chose: the language, the embed's parameters). The code that writes it is the same for
/// the life of the process.
fn page_source(files: &WebFiles, file_etag: &str, variant: &impl Hash) -> u64 {
    let mut h = DefaultHasher::new();
    file_etag.hash(&mut h);
    files.tile_url.hash(&mut h);
    files.public_base.hash(&mut h);
    variant.hash(&mut h);
    h.finish()
}

/// `W/"p…"`: a hash of the written page, so that a new build which writes the page
/// differently (tags, texts) gives it a new ETag even when `map/index.html` is unchanged.
fn page_etag(page: &[u8]) -> Arc<str> {
    Arc::from(cache::content_etag('p', page))
}

/// A page written from the map page's file by `write`, like the front end's files: an ETag
/// of the written page (`If-None-Match` → 304), and in the client's coding, compressed
/// once and kept by that ETag. The ETag is remembered by what the page is written from
/// ([`page_source`]), so `write` runs once per page and then only when no kept answer
/// serves (a browser's repeat request costs two hashes and two lookups, not a page and a
/// brotli pass). `vary`, when `variant` reads request headers, is the whole `Vary` value
/// (`Accept-Encoding` with them).
fn page_response(
    files: &WebFiles,
    headers: &HeaderMap,
    variant: impl Hash,
    vary: Option<&'static str>,
    write: impl Fn(&str) -> String,
) -> Response {
    let Some(file) = files.file(MAP_PAGE) else {
        return crate::error::plain(StatusCode::NOT_FOUND, "not_found", "no such file");
    };
    let render = || Bytes::from(write(&map_page(files, &file.bytes)));
    let source = page_source(files, &file.etag, &variant);
    let mut written = None;
    let etag = match files.page_etags.get(&source) {
        Some(etag) => etag,
        None => {
            let page = render();
            let etag = page_etag(&page);
            files.page_etags.insert(source, etag.clone());
            written = Some(page);
            etag
        }
    };
    let mut res = if cache::not_modified(headers, &etag) {
        cache::not_modified_response_with("no-cache", &etag)
    } else {
        let coding = Coding::preferred(headers);
        let answer = files
            .encoded
            .answer_ok(&etag, coding, || written.take().unwrap_or_else(render));
        cache::encoded_response_with(
            HeaderValue::from_static("text/html; charset=utf-8"),
            "no-cache",
            &etag,
            answer,
        )
    };
    if let Some(vary) = vary {
        res.headers_mut()
            .insert(header::VARY, HeaderValue::from_static(vary));
    }
    res
}

/// The language asked by a request (`?lang=`, `Accept-Language`), for the map pages.
fn map_lang(query: Option<&str>, headers: &axum::http::HeaderMap) -> MapLang {
    let asked = url::form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .find(|(k, _)| k == "lang")
        .map(|(_, v)| v.into_owned());
    let accept = headers
        .get(header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok());
    MapLang::new(asked.as_deref(), accept)
}

async fn map_index(
    State(files): State<WebFiles>,
    axum::extract::RawQuery(query): axum::extract::RawQuery,
    headers: axum::http::HeaderMap,
) -> Response {
    let lang = map_lang(query.as_deref(), &headers);
    // The page reads `?lang=` only (a bare `/` is French whatever the browser prefers).
    let variant = lang.tags().code();
    page_response(&files, &headers, variant, None, |page| {
        match files.public_base.as_deref() {
            Some(base) => crate::pages::map_page::map_page(page, base, lang),
            None => page.to_string(),
        }
    })
}

/// `/embed?…`: the map alone, for other sites' frames (crate::pages::map_page). Its
/// credit line speaks the language of `?lang=`, else of `Accept-Language`.
async fn embed_index(
    State(files): State<WebFiles>,
    axum::extract::RawQuery(query): axum::extract::RawQuery,
    headers: axum::http::HeaderMap,
) -> Response {
    let lang = map_lang(query.as_deref(), &headers);
    let pairs: Vec<(String, String)> =
        url::form_urlencoded::parse(query.unwrap_or_default().as_bytes())
            .into_owned()
            .collect();
    let variant = (lang.chosen.code(), &pairs);
    let vary = Some("Accept-Encoding, Accept-Language");
    page_response(&files, &headers, variant, vary, |page| {
        crate::pages::map_page::embed_page(
            page,
            files.public_base.as_deref().unwrap_or(""),
            &pairs,
            lang,
        )
    })
}

/// Marker of the tile URL in the map page: the value follows up to the next quote.
const TILE_META: &str = r#"<meta name="bandmap-tiles" content=""#;

/// The page with the tile meta tag's value replaced by `url` (HTML-escaped); a page
/// without the tag is returned as it is.
fn with_tile_url(page: &str, url: &str) -> String {
    let Some(start) = page.find(TILE_META).map(|i| i + TILE_META.len()) else {
        return page.to_string();
    };
    let Some(len) = page[start..].find('"') else {
        return page.to_string();
    };
    let escaped = url
        .replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    format!("{}{escaped}{}", &page[..start], &page[start + len..])
}

fn body_response(content_type: &str, cache: &str, body: Body) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type.to_string()),
            (header::CACHE_CONTROL, cache.to_string()),
        ],
        body,
    )
        .into_response()
}

async fn admin_index(State(files): State<WebFiles>, headers: HeaderMap) -> Response {
    file_response(&files, &headers, "admin/index.html")
}

async fn admin_asset(State(files): State<WebFiles>, headers: HeaderMap, uri: Uri) -> Response {
    let path = uri.path().trim_start_matches('/');
    // /admin/api/* and /admin/auth/* are API routes; an unknown one is a JSON 404.
    if path.starts_with("admin/api/") || path.starts_with("admin/auth/") {
        return crate::error::plain(StatusCode::NOT_FOUND, "not_found", "no such endpoint");
    }
    file_response(&files, &headers, path)
}

async fn not_found() -> Response {
    crate::error::plain(StatusCode::NOT_FOUND, "not_found", "no such endpoint")
}

async fn favicon(State(files): State<WebFiles>, headers: HeaderMap) -> Response {
    file_response(&files, &headers, "favicon.svg")
}

async fn asset(State(files): State<WebFiles>, headers: HeaderMap, uri: Uri) -> Response {
    file_response(&files, &headers, uri.path().trim_start_matches('/'))
}

fn file_response(files: &WebFiles, headers: &HeaderMap, path: &str) -> Response {
    let Some(File { bytes, etag }) = files.file(path) else {
        return crate::error::plain(StatusCode::NOT_FOUND, "not_found", "no such file");
    };
    let cache_control = if path.starts_with("vendor/") || path == "favicon.svg" {
        "public, max-age=86400"
    } else {
        "no-cache"
    };
    if cache::not_modified(headers, &etag) {
        return cache::not_modified_response_with(cache_control, &etag);
    }
    let mime = mime_guess::from_path(path).first_or_octet_stream();
    let content_type = HeaderValue::from_str(mime.as_ref())
        .unwrap_or(HeaderValue::from_static("application/octet-stream"));
    // Images and fonts are compressed already.
    let coding = if is_text(&mime) {
        Coding::preferred(headers)
    } else {
        Coding::Identity
    };
    let answer = files.encoded.answer_ok(&etag, coding, || bytes);
    cache::encoded_response_with(content_type, cache_control, &etag, answer)
}

/// Whether a file of this type is worth compressing: text, scripts, JSON, SVG.
fn is_text(mime: &mime_guess::Mime) -> bool {
    mime.type_() == mime_guess::mime::TEXT
        || mime.subtype() == mime_guess::mime::JAVASCRIPT
        || mime.subtype() == mime_guess::mime::JSON
        || mime.suffix() == Some(mime_guess::mime::JSON)
        || mime.subtype() == mime_guess::mime::SVG
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_favicon_the_shared_modules_and_the_vendored_files_are_served() {
        let files = WebFiles::new(None);
        for path in [
            "favicon.svg",
            "map/index.html",
            "admin/index.html",
            "lib/dom.js",
            "lib/http.js",
            "vendor/leaflet/leaflet-src.esm.js",
            "vendor/world-atlas/countries-110m.json",
        ] {
            assert!(files.file(path).is_some(), "{path} is served");
        }
    }

    #[test]
    fn text_types_are_compressed_and_images_are_not() {
        for (path, text) in [
            ("a.js", true),
            ("a.css", true),
            ("index.html", true),
            ("a.json", true),
            ("favicon.svg", true),
            ("a.png", false),
            ("a.woff2", false),
            ("a.bin", false),
        ] {
            let mime = mime_guess::from_path(path).first_or_octet_stream();
            assert_eq!(is_text(&mime), text, "{path}: {mime}");
        }
    }

    #[test]
    fn embedded_files_carry_their_digest_as_etag() {
        let files = WebFiles::new(None);
        let a = files.file("lib/dom.js").unwrap();
        let b = files.file("lib/dom.js").unwrap();
        assert_eq!(a.etag, b.etag);
        assert_eq!(a.etag.len(), "W/\"s\"".len() + 16, "{}", a.etag);
        assert_ne!(a.etag, files.file("lib/http.js").unwrap().etag);
        assert!(files.file("../Cargo.toml").is_none());
        assert!(files.file("map/.hidden").is_none());
    }

    #[test]
    fn the_tile_url_replaces_the_meta_value_escaped() {
        let page =
            r#"<head><meta name="bandmap-tiles" content="https://a/{z}/{x}/{y}.png"></head>"#;
        assert_eq!(
            with_tile_url(page, "https://t.example/{z}/{x}/{y}.png?k=1&s=\"x\""),
            r#"<head><meta name="bandmap-tiles" content="https://t.example/{z}/{x}/{y}.png?k=1&amp;s=&quot;x&quot;"></head>"#
        );
        assert_eq!(with_tile_url("<p>no tag</p>", "none"), "<p>no tag</p>");
    }
}
