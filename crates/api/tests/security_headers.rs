//! Browser hardening headers (issue 15): every page, static file and API answer carries the
//! Content-Security-Policy, `nosniff`, `DENY` framing, the referrer and permissions
//! policies; the configured tile host, and only it, is allowed for images.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_test_support::{spawn_app, spawn_app_with};

const PATHS: [&str; 7] = [
    "/",
    "/admin/",
    "/map/map.js",
    "/admin/app.js",
    "/api/openapi.json",
    "/healthz",
    "/api/nope",
];

#[tokio::test]
async fn every_answer_carries_the_hardening_headers() {
    let app = spawn_app().await;
    for path in PATHS {
        let r = app.client.get(app.url(path)).send().await.unwrap();
        let h = r.headers();
        let get = |name: &str| {
            h.get(name)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_string()
        };
        let csp = get("content-security-policy");
        assert!(csp.contains("script-src 'self';"), "{path}: {csp}");
        assert!(csp.contains("style-src 'self';"), "{path}: {csp}");
        assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp}");
        assert!(csp.contains("object-src 'none'"), "{path}: {csp}");
        assert!(
            !csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"),
            "{path}: {csp}"
        );
        assert!(
            csp.contains("img-src 'self' data: https://tile.openstreetmap.org;"),
            "{path}: the default tile host is allowed for images: {csp}"
        );
        assert_eq!(get("x-content-type-options"), "nosniff", "{path}");
        assert_eq!(get("x-frame-options"), "DENY", "{path}");
        assert_eq!(
            get("referrer-policy"),
            "strict-origin-when-cross-origin",
            "{path}"
        );
        let permissions = get("permissions-policy");
        for denied in ["camera=()", "microphone=()", "geolocation=()", "payment=()"] {
            assert!(permissions.contains(denied), "{path}: {permissions}");
        }
        assert!(
            h.get("strict-transport-security").is_none(),
            "{path}: HSTS belongs to the TLS proxy"
        );
    }
}

#[tokio::test]
async fn the_configured_tile_host_is_the_only_remote_image_source() {
    let app = spawn_app_with(
        &[(
            "MAP_TILE_URL",
            "https://{s}.tiles.example.net/{z}/{x}/{y}.png",
        )],
        None,
    )
    .await;
    let r = app.client.get(app.url("/")).send().await.unwrap();
    let csp = r.headers()["content-security-policy"].to_str().unwrap();
    assert!(
        csp.contains("img-src 'self' data: https://*.tiles.example.net;"),
        "{csp}"
    );
    assert!(!csp.contains("openstreetmap"), "{csp}");

    let app = spawn_app_with(&[("MAP_TILE_URL", "none")], None).await;
    let r = app.client.get(app.url("/")).send().await.unwrap();
    let csp = r.headers()["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("img-src 'self' data:;"), "{csp}");
}
