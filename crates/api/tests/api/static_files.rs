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
