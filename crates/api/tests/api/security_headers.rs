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

// ---- Issue 31: no string reaches an HTML sink in either front end -----------------------

/// The front ends' own scripts (not the vendored libraries, the tests or the dev tools).
fn front_end_scripts() -> Vec<(std::path::PathBuf, String)> {
    let web = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web");
    let mut out = Vec::new();
    let mut dirs = vec![web.join("admin"), web.join("map"), web.join("lib")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "js") {
                let text = std::fs::read_to_string(&path).unwrap();
                out.push((path, text));
            }
        }
    }
    assert!(out.len() > 10, "the front ends' scripts were not found");
    out
}

/// The code of a script without its comments (a comment may name a sink to warn of it).
fn code_of(text: &str) -> String {
    text.lines()
        .map(|l| match l.trim_start() {
            t if t.starts_with("//") || t.starts_with('*') || t.starts_with("/*") => "",
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The text of a call's first argument (or of a property's value) starting at `from`.
fn argument_at(code: &str, from: usize) -> &str {
    code[from..].trim_start()
}

/// Whether an argument is a DOM node built here: `h(…)`, or a name this file binds to one
/// (`const x = h(…)`, `function x(…)` returning nodes, checked by its own uses).
fn is_node(arg: &str, code: &str) -> bool {
    if arg.starts_with("h(") {
        return true;
    }
    // A function given inline (`() => tip(a, b)`, `(layer) => h(…)`): what it returns.
    if arg.starts_with('(')
        && let Some((params, body)) = arg.split_once("=>")
        && !params.contains(['\'', '"', '`'])
    {
        let body = body.trim_start();
        return !body.starts_with('{') && is_node(body, code);
    }
    let name: String = arg
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    !name.is_empty()
        && (code.contains(&format!("const {name} = h("))
            || code.contains(&format!("let {name} = h("))
            || code.contains(&format!("function {name}(")))
}

/// Every place a string could become markup: the raw HTML setters anywhere, and Leaflet's
/// content setters and `divIcon({html})` with anything but a node.
fn html_sinks(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    for raw in [
        "innerHTML",
        "outerHTML",
        "insertAdjacentHTML",
        "document.write",
        "DOMParser",
        "createContextualFragment",
    ] {
        if code.contains(raw) {
            found.push(raw.to_string());
        }
    }
    for call in [
        ".bindTooltip(",
        ".bindPopup(",
        ".setContent(",
        ".setTooltipContent(",
        ".setPopupContent(",
    ] {
        for (at, _) in code.match_indices(call) {
            let arg = argument_at(code, at + call.len());
            if !is_node(arg, code) {
                found.push(format!("{call}{}", arg.lines().next().unwrap_or("")));
            }
        }
    }
    for (at, _) in code.match_indices("html:") {
        let arg = argument_at(code, at + "html:".len());
        if !is_node(arg, code) {
            found.push(format!("html: {}", arg.lines().next().unwrap_or("")));
        }
    }
    found
}

#[test]
fn no_string_reaches_an_html_sink_in_the_front_ends() {
    let mut problems = Vec::new();
    for (path, text) in front_end_scripts() {
        for sink in html_sinks(&code_of(&text)) {
            problems.push(format!("{}: {sink}", path.display()));
        }
    }
    assert!(
        problems.is_empty(),
        "strings can become markup:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_sink_check_finds_what_it_looks_for() {
    // The check itself, on the forms it must refuse and accept.
    let bad = [
        "el.innerHTML = name;",
        "m.bindTooltip(`${i + 1}. ${s.label}`, { permanent: true });",
        "m.bindPopup(label);",
        "L.divIcon({ html: `<b>${n}</b>` });",
        "layer.setContent('<i>' + x + '</i>');",
        "g.bindTooltip(() => `<b>${name}</b>`, {});",
        "g.bindTooltip((l) => label(l), {});",
    ];
    for code in bad {
        assert!(!html_sinks(code).is_empty(), "{code}");
    }
    let good = [
        "m.bindTooltip(h('span', null, label), {});",
        "const el = h('span', null, x); L.divIcon({ html: el });",
        "function tip(layer) { return h('b'); } layer.bindTooltip(tip, {});",
        "function tip(a, b) { return h('b'); } g.bindTooltip(() => tip(a, b), {});",
    ];
    for code in good {
        assert_eq!(html_sinks(code), Vec::<String>::new(), "{code}");
    }
}

#[tokio::test]
async fn admin_answers_are_never_stored_and_public_ones_may_be() {
    // Issue 31: a shared computer's browser cache or a proxy kept admin data and sessions.
    let app = spawn_app().await;
    let cookie = app.login().await;
    for (path, with_session) in [
        ("/admin/api/bands", true),
        ("/admin/auth/me", true),
        ("/admin/auth/me", false),
        ("/admin/api/bands", false),
    ] {
        let mut req = app.client.get(app.url(path));
        if with_session {
            req = req.header("cookie", cookie.as_str());
        }
        let res = req.send().await.unwrap();
        assert_eq!(
            res.headers()["cache-control"],
            "no-store",
            "{path} ({})",
            res.status()
        );
    }
    let res = app
        .client
        .get(app.url("/api/clusters?zoom=3"))
        .send()
        .await
        .unwrap();
    assert_ne!(
        res.headers()
            .get("cache-control")
            .map(|v| v.to_str().unwrap()),
        Some("no-store")
    );
}
