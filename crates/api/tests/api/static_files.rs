//! The front end's files: an ETag of their content on every answer, `If-None-Match` → 304
//! with the same caching, text files in the client's coding (compressed once and kept),
//! images as they are.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_test_support::{TestApp, spawn_app};
use std::io::Read;

async fn get(app: &TestApp, path: &str, headers: &[(&str, &str)]) -> reqwest::Response {
    let mut req = app.client.get(app.url(path));
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    req.send().await.unwrap()
}

#[tokio::test]
async fn every_file_has_an_etag_and_a_repeat_is_a_304() {
    let app = spawn_app().await;
    for (path, cache) in [
        ("/map/clusters.js", "no-cache"),
        ("/admin/", "no-cache"),
        ("/lib/dom.js", "no-cache"),
        ("/vendor/leaflet/leaflet.css", "public, max-age=86400"),
        ("/favicon.svg", "public, max-age=86400"),
        ("/map/preview.png", "no-cache"),
    ] {
        let first = get(&app, path, &[]).await;
        assert_eq!(first.status(), 200, "{path}");
        assert_eq!(first.headers()["cache-control"], cache, "{path}");
        let etag = first.headers()["etag"].to_str().unwrap().to_string();
        assert!(etag.starts_with("W/\"s"), "{path}: {etag}");
        let body = first.bytes().await.unwrap();
        assert!(!body.is_empty(), "{path}");
        // The same bytes, the same ETag; the ETag again: nothing to send.
        let again = get(&app, path, &[]).await;
        assert_eq!(again.headers()["etag"].to_str().unwrap(), etag, "{path}");
        let revalidated = get(&app, path, &[("if-none-match", &etag)]).await;
        assert_eq!(revalidated.status(), 304, "{path}");
        assert_eq!(revalidated.headers()["etag"].to_str().unwrap(), etag);
        assert_eq!(revalidated.headers()["cache-control"], cache, "{path}");
        assert!(revalidated.bytes().await.unwrap().is_empty());
        // Another ETag: the file.
        let stale = get(&app, path, &[("if-none-match", "W/\"s0\"")]).await;
        assert_eq!(stale.status(), 200, "{path}");
        assert_eq!(stale.bytes().await.unwrap(), body, "{path}");
    }
    // Two different files, two ETags.
    let a = get(&app, "/lib/dom.js", &[]).await.headers()["etag"].clone();
    let b = get(&app, "/lib/http.js", &[]).await.headers()["etag"].clone();
    assert_ne!(a, b);
}

#[tokio::test]
async fn text_files_come_compressed_and_images_as_they_are() {
    let app = spawn_app().await;
    let browser = [("accept-encoding", "gzip, deflate, br, zstd")];
    for path in [
        "/vendor/leaflet/leaflet-src.esm.js",
        "/map/clusters.js",
        "/admin/",
    ] {
        let plain = get(&app, path, &[]).await;
        assert!(plain.headers().get("content-encoding").is_none(), "{path}");
        let plain = plain.bytes().await.unwrap();
        for _ in 0..2 {
            let res = get(&app, path, &browser).await;
            assert_eq!(res.status(), 200, "{path}");
            assert_eq!(res.headers()["content-encoding"], "br", "{path}");
            let vary = res.headers()["vary"].to_str().unwrap().to_ascii_lowercase();
            assert!(vary.contains("accept-encoding"), "{path}: {vary}");
            let packed = res.bytes().await.unwrap();
            assert!(packed.len() < plain.len(), "{path}");
            let mut out = Vec::new();
            brotli::Decompressor::new(&packed[..], 4096)
                .read_to_end(&mut out)
                .unwrap();
            assert_eq!(out, plain.to_vec(), "{path}: round trip");
        }
        let gz = get(&app, path, &[("accept-encoding", "gzip")]).await;
        assert_eq!(gz.headers()["content-encoding"], "gzip", "{path}");
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&gz.bytes().await.unwrap()[..])
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out, plain.to_vec(), "{path}: gzip round trip");
    }
    let png = get(&app, "/map/preview.png", &browser).await;
    assert_eq!(png.status(), 200);
    assert!(png.headers().get("content-encoding").is_none());
    assert_eq!(&png.bytes().await.unwrap()[1..4], b"PNG");
}

#[tokio::test]
async fn a_missing_file_is_still_a_json_404() {
    let app = spawn_app().await;
    let res = get(&app, "/map/no-such-file.js", &[("if-none-match", "*")]).await;
    assert_eq!(res.status(), 404);
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(body["error"]["code"], "not_found");
}

/// Decodes a brotli body.
fn unbrotli(packed: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    brotli::Decompressor::new(packed, 4096)
        .read_to_end(&mut out)
        .unwrap();
    out
}

#[tokio::test]
async fn the_map_page_has_an_etag_per_language_and_comes_compressed() {
    let app = spawn_app().await;
    let browser = [("accept-encoding", "gzip, deflate, br, zstd")];
    let plain = get(&app, "/", &[]).await;
    assert_eq!(plain.status(), 200);
    assert_eq!(plain.headers()["cache-control"], "no-cache");
    let etag = plain.headers()["etag"].to_str().unwrap().to_string();
    assert!(etag.starts_with("W/\"p"), "{etag}");
    let html = plain.text().await.unwrap();
    // The ETag names the page as written (not only the file it is written from): a new
    // build that writes other tags into an unchanged file gives the page a new ETag.
    let mut h = std::hash::DefaultHasher::new();
    std::hash::Hasher::write(&mut h, html.as_bytes());
    assert_eq!(
        etag,
        format!("W/\"p{:016x}\"", std::hash::Hasher::finish(&h))
    );
    assert!(html.contains("<html lang=\"fr\""), "a bare / is French");
    assert!(html.contains("og:title"), "the preview tags are written in");
    // A browser gets the same page in brotli, twice (the second time from the kept copy).
    for _ in 0..2 {
        let res = get(&app, "/", &browser).await;
        assert_eq!(res.headers()["content-encoding"], "br");
        assert_eq!(res.headers()["etag"].to_str().unwrap(), etag);
        assert_eq!(unbrotli(&res.bytes().await.unwrap()), html.as_bytes());
    }
    // Revalidation: nothing to send.
    let again = get(&app, "/", &[("if-none-match", &etag)]).await;
    assert_eq!(again.status(), 304);
    assert_eq!(again.headers()["cache-control"], "no-cache");
    assert!(again.bytes().await.unwrap().is_empty());
    // The browser's languages do not change a bare / (no Vary on them), ?lang=en does.
    let en_browser = get(&app, "/", &[("accept-language", "en")]).await;
    assert_eq!(en_browser.headers()["etag"].to_str().unwrap(), etag);
    let en = get(&app, "/?lang=en", &[]).await;
    let en_etag = en.headers()["etag"].to_str().unwrap().to_string();
    assert_ne!(en_etag, etag);
    assert!(en.text().await.unwrap().contains("<html lang=\"en\""));
    let stale = get(&app, "/?lang=en", &[("if-none-match", &etag)]).await;
    assert_eq!(
        stale.status(),
        200,
        "the French page's ETag is not the English page's"
    );
}

#[tokio::test]
async fn the_embed_varies_with_its_parameters_and_the_browser_languages() {
    let app = spawn_app().await;
    let fr = get(&app, "/embed?zoom=5", &[("accept-language", "fr")]).await;
    assert_eq!(fr.status(), 200);
    let vary = fr.headers()["vary"].to_str().unwrap().to_ascii_lowercase();
    assert!(
        vary.contains("accept-encoding") && vary.contains("accept-language"),
        "{vary}"
    );
    let fr_etag = fr.headers()["etag"].to_str().unwrap().to_string();
    let en = get(&app, "/embed?zoom=5", &[("accept-language", "en")]).await;
    let en_etag = en.headers()["etag"].to_str().unwrap().to_string();
    assert_ne!(
        fr_etag, en_etag,
        "the credit line speaks the browser's language"
    );
    let other = get(&app, "/embed?zoom=6", &[("accept-language", "fr")]).await;
    assert_ne!(other.headers()["etag"].to_str().unwrap(), fr_etag);
    let revalidated = get(
        &app,
        "/embed?zoom=5",
        &[("accept-language", "fr"), ("if-none-match", &fr_etag)],
    )
    .await;
    assert_eq!(revalidated.status(), 304);
    let vary = revalidated.headers()["vary"]
        .to_str()
        .unwrap()
        .to_ascii_lowercase();
    assert!(vary.contains("accept-language"), "{vary}");
    let browser = get(
        &app,
        "/embed?zoom=5",
        &[("accept-language", "fr"), ("accept-encoding", "br")],
    )
    .await;
    assert_eq!(browser.headers()["content-encoding"], "br");
    let page = String::from_utf8(unbrotli(&browser.bytes().await.unwrap())).unwrap();
    assert_eq!(page, fr.text().await.unwrap());
    assert!(page.contains("embed-credit"));
}
