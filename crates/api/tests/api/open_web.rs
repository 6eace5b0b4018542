//! Issue 28, the map on the open web, from the outside (curl-style requests against the
//! running app): town and band pages (hostile stored text escaped, 404 pages, canonical
//! redirects), preview tags, the sitemap, framing headers per path, the embed page, and
//! the exports counting what the clusters count.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_test_support::app::{TestApp, spawn_app_with};
use serde_json::Value;

const BASE: &str = "https://bandmap.example";

// Oslo (59.9127, 10.7461): Alpha and Gamma formed there, Beta arrived, Alpha left for
// Bergen. Delta names only its country (a centroid, no town). Alpha's stored upstream URL
// is hostile, and so is its name.
const SEED: &str = r#"
INSERT INTO bands (ma_id, name, genre, country, country_code, status, formed_year, data) VALUES
 (1, 'Alpha <img src=x>', 'Black Metal', 'Norway', 'NO', 'Active', 1991, '{"url": "javascript:alert(1)"}'),
 (2, 'Beta', 'Death/Doom Metal', 'Sweden', 'SE', 'Split-up', 1988, '{"url": "https://www.metal-archives.com/bands/Beta/2"}'),
 (3, 'Gamma', 'Heavy/Power Metal', 'Norway', 'NO', 'Active', 2005, '{}'),
 (4, 'Delta', 'Black Metal', 'Norway', 'NO', 'Active', 1999, '{}'),
 (5, 'Epsilon', 'Black Metal', 'Norway', 'NO', 'Active', 2010, '{}');
INSERT INTO band_locations (id, ma_id, step_order, parsed_step, step_label, location_raw, city, country, country_code, lat, lon, geocode_status, provider) VALUES
 (11, 1, 0, 0, 'origin', 'Oslo', 'Oslo', 'Norway', 'NO', 59.9127, 10.7461, 'done', 'gazetteer'),
 (12, 1, 1, 1, 'later', 'Bergen <b>', 'Bergen', 'Norway', 'NO', 60.3913, 5.3221, 'done', 'geoapify'),
 (21, 2, 0, 0, NULL, 'Bergen', 'Bergen', 'Norway', 'NO', 60.3913, 5.3221, 'done', 'gazetteer'),
 (22, 2, 1, 1, NULL, 'Oslo', 'Oslo', 'Norway', 'NO', 59.91271, 10.74609, 'done', 'llm+geoapify'),
 (31, 3, 0, 0, NULL, 'Oslo', 'Oslo', 'Norway', 'NO', 59.9127, 10.7461, 'done', 'manual'),
 (41, 4, 0, 0, NULL, 'Norway', NULL, 'Norway', 'NO', 61.5, 9.0, 'country_only', 'centroid'),
 (51, 5, 0, 0, NULL, 'Trondheim', 'Trondheim', 'Norway', 'NO', NULL, NULL, 'pending', NULL);
"#;

const OSLO: &str = "/town/59.9127_10.7461/oslo";

async fn seeded() -> TestApp {
    seeded_with(&[]).await
}

async fn seeded_with(extra: &[(&str, &str)]) -> TestApp {
    let mut overrides = vec![("PUBLIC_BASE_URL", BASE)];
    overrides.extend_from_slice(extra);
    let app = spawn_app_with(&overrides, None).await;
    sqlx::raw_sql(SEED).execute(&app.db.pool).await.unwrap();
    app.state.read.map.reload(&app.state.pool).await.unwrap();
    app
}

fn no_redirects() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

async fn page(app: &TestApp, path: &str) -> (u16, reqwest::header::HeaderMap, String) {
    let res = no_redirects().get(app.url(path)).send().await.unwrap();
    let status = res.status().as_u16();
    let headers = res.headers().clone();
    (status, headers, res.text().await.unwrap())
}

/// The HTML between `<section id="{id}"` and its end.
fn section<'a>(html: &'a str, id: &str) -> &'a str {
    let start = html
        .find(&format!("<section id=\"{id}\""))
        .unwrap_or_else(|| panic!("no section {id} in {html}"));
    let end = html[start..].find("</section>").unwrap() + start;
    &html[start..end]
}

#[tokio::test]
async fn a_town_page_lists_bands_formed_arrived_and_left_escaped() {
    let app = seeded().await;
    let (status, headers, html) = page(&app, OSLO).await;
    assert_eq!(status, 200, "{html}");
    assert!(
        headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    assert!(html.contains("<h1>Oslo</h1>"), "{html}");
    let formed = section(&html, "formed");
    assert!(formed.contains("Alpha &lt;img src=x&gt;") && formed.contains("Gamma"));
    assert!(!formed.contains("Beta"));
    let arrived = section(&html, "arrived");
    assert!(arrived.contains("href=\"/band/2?lang=fr\"") && !arrived.contains("Gamma"));
    let left = section(&html, "left");
    assert!(left.contains("/band/1") && !left.contains("Gamma") && !left.contains("Beta"));
    assert!(!html.contains("<img src=x>"), "stored text is escaped");
    assert!(
        html.contains("href=\"/?lat=59.9127&amp;lon=10.7461&amp;z=11\""),
        "map link"
    );
    assert!(html.contains(&format!("<link rel=\"canonical\" href=\"{BASE}{OSLO}\">")));
    assert!(html.contains("<meta name=\"description\" content=\"Oslo, Norway : groupes de metal liés à ce lieu : 3 — formés ici : 2, arrivés : 1, partis : 1."), "{html}");
    assert!(
        html.contains("<p>Genres : Black, Death, Doom, Heavy, Power.</p>"),
        "{html}"
    );
    assert!(html.contains("Formés de 1988 à 2005."));
    assert!(!html.contains("<script"), "the page needs no script");
}

#[tokio::test]
async fn pages_speak_the_language_asked_for() {
    let app = seeded().await;
    let get = |path: &'static str, accept: Option<&'static str>| {
        let mut req = no_redirects().get(app.url(path));
        if let Some(a) = accept {
            req = req.header("accept-language", a);
        }
        async move {
            let res = req.send().await.unwrap();
            assert_eq!(res.status(), 200, "{path}");
            assert_eq!(res.headers()["vary"], "Accept-Language");
            res.text().await.unwrap()
        }
    };
    // The browser's languages choose, and the choice goes into the URL: a bare URL asked
    // for by an English-preferring browser is sent to its `?lang=en` (one URL, one
    // language: the canonical link of each is itself)…
    let moved = no_redirects()
        .get(app.url(OSLO))
        .header("accept-language", "de-DE,de;q=0.9,en;q=0.8")
        .send()
        .await
        .unwrap();
    assert_eq!(moved.status(), 307);
    assert_eq!(moved.headers()["location"], format!("{OSLO}?lang=en"));
    assert_eq!(moved.headers()["vary"], "Accept-Language");
    // …a French-preferring one, or one that says nothing, stays (French is the default);
    // a `lang` in the query, even one not offered, is never redirected (no loop).
    for accept in [Some("fr-FR,fr;q=0.9,en;q=0.8"), None] {
        let fr = get(OSLO, accept).await;
        assert!(fr.starts_with("<!DOCTYPE html><html lang=\"fr\">"), "{fr}");
        assert!(fr.contains(&format!("<link rel=\"canonical\" href=\"{BASE}{OSLO}\">")));
    }
    let de = get("/town/59.9127_10.7461/oslo?lang=de", Some("en")).await;
    assert!(de.starts_with("<!DOCTYPE html><html lang=\"en\">"), "{de}");
    let en = get(
        "/town/59.9127_10.7461/oslo?lang=en",
        Some("de-DE,de;q=0.9,en;q=0.8"),
    )
    .await;
    assert!(en.starts_with("<!DOCTYPE html><html lang=\"en\">"), "{en}");
    assert!(en.contains("Formed here (2)") && en.contains("Left for elsewhere (1)"));
    assert!(
        en.contains("href=\"/band/2?lang=en\""),
        "links keep the language"
    );
    assert!(en.contains(&format!(
        "<link rel=\"canonical\" href=\"{BASE}{OSLO}?lang=en\">"
    )));
    assert!(en.contains(&format!(
        "<link rel=\"alternate\" hreflang=\"fr\" href=\"{BASE}{OSLO}\">"
    )));
    assert!(en.contains("<meta property=\"og:locale\" content=\"en_GB\">"));
    // …the URL overrides, and the switch links to both.
    let fr = get("/town/59.9127_10.7461/oslo?lang=fr", Some("en")).await;
    assert!(fr.contains("Formés ici (2)"), "{fr}");
    assert!(
        fr.contains(
            "href=\"/town/59.9127_10.7461/oslo?lang=en\" hreflang=\"en\" lang=\"en\">English</a>"
        ),
        "{fr}"
    );
    assert!(fr.contains("aria-current=\"page\">Français</a>"));
    let band = get("/band/1?lang=en", None).await;
    assert!(
        band.contains("<h2>Path</h2>") && band.contains("Its page on Encyclopaedia Metallum"),
        "{band}"
    );
    assert!(band.contains(
        "Alpha &lt;img src=x&gt;: Black Metal, Norway, formed in 1991. Path: Oslo → Bergen."
    ));
    let missing = no_redirects()
        .get(app.url("/band/999?lang=en"))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
    assert!(missing.text().await.unwrap().contains("<h1>Not found</h1>"));
}

#[tokio::test]
async fn town_urls_redirect_to_the_canonical_one() {
    let app = seeded().await;
    for path in [
        "/town/59.9127_10.7461",
        "/town/59.9127_10.7461/wrong-slug",
        "/town/59.91270_10.74610/oslo",
    ] {
        let (status, headers, _) = page(&app, path).await;
        assert_eq!(status, 308, "{path}");
        assert_eq!(headers["location"], format!("{OSLO}?lang=fr"), "{path}");
    }
}

#[tokio::test]
async fn unknown_towns_and_bands_answer_a_404_page() {
    let app = seeded().await;
    for path in [
        "/town/1.0000_1.0000/nowhere",
        "/town/61.5000_9.0000/norway",
        "/town/not-a-key",
        "/town/99_0/x",
        "/band/999",
        "/band/abc",
        "/band/-1",
    ] {
        let (status, headers, html) = page(&app, path).await;
        assert_eq!(status, 404, "{path}");
        assert!(
            headers["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/html"),
            "{path}"
        );
        assert!(html.contains("<h1>Introuvable</h1>"), "{path}: {html}");
        assert!(html.contains("noindex"));
    }
}

#[tokio::test]
async fn a_band_link_previews_with_opengraph_tags() {
    let app = seeded().await;
    let (status, _, html) = page(&app, "/band/1").await;
    assert_eq!(status, 200, "{html}");
    for tag in [
        "<meta property=\"og:title\" content=\"Alpha &lt;img src=x&gt; — Black Metal · Band Map\">"
            .to_string(),
        format!("<meta property=\"og:url\" content=\"{BASE}/band/1\">"),
        format!("<meta property=\"og:image\" content=\"{BASE}/map/preview.png\">"),
        "<meta property=\"og:type\" content=\"website\">".to_string(),
        "<meta name=\"twitter:card\" content=\"summary_large_image\">".to_string(),
        format!("<link rel=\"canonical\" href=\"{BASE}/band/1\">"),
    ] {
        assert!(html.contains(&tag), "missing {tag} in {html}");
    }
    assert!(html.contains(
        "<meta property=\"og:description\" content=\"Alpha &lt;img src=x&gt; : Black Metal, Norway, formé en 1991. Parcours : Oslo → Bergen."
    ), "{html}");
    // The path: each place links to its town page.
    assert!(
        html.contains("<a href=\"/town/59.9127_10.7461/oslo?lang=fr\">Oslo</a>"),
        "{html}"
    );
    assert!(html.contains("<a href=\"/town/60.3913_5.3221/bergen?lang=fr\">Bergen &lt;b&gt;</a>"));
    assert!(html.contains("href=\"/?band=1\""));
    // A hostile stored URL is not linked: the upstream's own form is.
    assert!(!html.contains("javascript:"));
    assert!(
        html.contains("href=\"https://www.metal-archives.com/bands/_/1\""),
        "{html}"
    );
    let (_, _, beta) = page(&app, "/band/2").await;
    assert!(beta.contains("href=\"https://www.metal-archives.com/bands/Beta/2\""));
    let (_, _, delta) = page(&app, "/band/4").await;
    assert!(
        delta.contains("Norway <span class=\"note\">(pays seulement)</span>"),
        "{delta}"
    );
    let (_, _, eps) = page(&app, "/band/5").await;
    assert!(eps.contains("Trondheim <span class=\"note\">(non localisé)</span>"));
}

#[tokio::test]
async fn the_map_page_has_a_description_and_preview_tags() {
    let app = seeded().await;
    let (status, _, html) = page(&app, "/").await;
    assert_eq!(status, 200);
    assert!(html.contains("<meta name=\"description\" content=\"La carte des groupes"));
    assert!(html.contains(&format!("<meta property=\"og:url\" content=\"{BASE}/\">")));
    assert!(html.contains(&format!(
        "<meta name=\"twitter:image\" content=\"{BASE}/map/preview.png\">"
    )));
    assert!(html.contains(&format!(
        "<meta name=\"bandmap-origin\" content=\"{BASE}\">"
    )));
    assert!(html.contains("src=\"/map/share.js\""));
    let png = app
        .client
        .get(app.url("/map/preview.png"))
        .send()
        .await
        .unwrap();
    assert_eq!(png.status(), 200);
    assert_eq!(png.headers()["content-type"], "image/png");
}

#[tokio::test]
async fn the_sitemap_lists_every_town_and_band() {
    let app = seeded().await;
    let (status, headers, index) = page(&app, "/sitemap.xml").await;
    assert_eq!(status, 200);
    assert!(
        headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/xml")
    );
    assert!(
        index.contains(&format!("<loc>{BASE}/sitemap/towns-0.xml</loc>")),
        "{index}"
    );
    assert!(index.contains(&format!("<loc>{BASE}/sitemap/bands-0.xml</loc>")));
    let (_, _, towns) = page(&app, "/sitemap/towns-0.xml").await;
    assert!(towns.contains(&format!("<loc>{BASE}/</loc>")));
    assert!(
        towns.contains(&format!("<loc>{BASE}{OSLO}</loc>")),
        "{towns}"
    );
    assert!(towns.contains(&format!("<loc>{BASE}/town/60.3913_5.3221/bergen</loc>")));
    assert_eq!(
        towns.matches("<url>").count(),
        3,
        "the map, Oslo, Bergen: {towns}"
    );
    let (_, _, bands) = page(&app, "/sitemap/bands-0.xml").await;
    assert_eq!(bands.matches("<url>").count(), 5);
    assert!(bands.contains(&format!("<loc>{BASE}/band/3</loc>")));
    for bad in [
        "/sitemap/bands-1.xml",
        "/sitemap/towns-x.xml",
        "/sitemap/other-0.xml",
    ] {
        assert_eq!(page(&app, bad).await.0, 404, "{bad}");
    }
    let (_, _, robots) = page(&app, "/robots.txt").await;
    assert!(robots.contains(&format!("Sitemap: {BASE}/sitemap.xml")));
    assert!(robots.contains("Disallow: /admin/"));
}

#[tokio::test]
async fn only_the_embed_may_be_framed() {
    let app = seeded().await;
    let (status, h, _) = page(&app, "/embed?lat=60&lon=10&z=5").await;
    assert_eq!(status, 200);
    let csp = h["content-security-policy"].to_str().unwrap();
    assert!(csp.contains("frame-ancestors *"), "{csp}");
    assert!(!csp.contains("frame-ancestors 'none'"));
    assert!(h.get("x-frame-options").is_none());
    for path in [
        "/",
        OSLO,
        "/band/1",
        "/band/999",
        "/sitemap.xml",
        "/api/clusters",
        "/api/export.csv",
        "/embed/",
        "/map/embed.css",
    ] {
        let (_, h, _) = page(&app, path).await;
        let csp = h["content-security-policy"].to_str().unwrap();
        assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp}");
        assert_eq!(h["x-frame-options"], "DENY", "{path}");
    }
}

#[tokio::test]
async fn the_embed_switches_its_controls_and_links_back() {
    let app = seeded().await;
    let (_, _, html) = page(&app, "/embed?lat=60&lon=10&z=5&genre=black&timeline=1").await;
    assert!(
        html.contains("<html class=\"embed embed-no-search embed-no-filters\" lang=\"fr\">"),
        "{html}"
    );
    assert!(html.contains(&format!(
        "href=\"{BASE}/?lat=60&amp;lon=10&amp;z=5&amp;genre=black\" target=\"_blank\""
    )));
    assert!(html.contains("GeoNames"));
    assert!(html.contains("<meta name=\"robots\" content=\"noindex\">"));
    assert!(html.contains("/map/embed.css"));
}

async fn clusters_total(app: &TestApp, query: &str) -> u64 {
    let body: Value = app
        .client
        .get(app.url(&format!("/api/clusters?zoom=3&{query}")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    body["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let p = &f["properties"];
            if p["cluster"] == true {
                p["count"].as_u64().unwrap()
            } else {
                1
            }
        })
        .sum()
}

#[tokio::test]
async fn the_export_counts_what_the_clusters_count() {
    let app = seeded().await;
    for query in [
        "",
        "genre=black",
        "country=NO",
        "family=doom",
        "year_min=1990&year_max=2000",
        "status=split-up",
        "genre=nothing-like-this",
    ] {
        let res = app
            .client
            .get(app.url(&format!("/api/export.geojson?{query}")))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200, "{query}");
        assert_eq!(res.headers()["content-type"], "application/geo+json");
        let body: Value = res.json().await.unwrap();
        let features = body["features"].as_array().unwrap();
        assert_eq!(
            features.len() as u64,
            clusters_total(&app, query).await,
            "{query}"
        );
        assert!(body["attribution"].as_str().unwrap().contains("GeoNames"));
        assert!(
            body["attribution"]
                .as_str()
                .unwrap()
                .contains("metal-archives.com")
        );
        let csv = app.get_text(&format!("/api/export.csv?{query}")).await;
        let rows = csv.lines().filter(|l| !l.starts_with('#')).count() - 1;
        assert_eq!(rows, features.len(), "{query}: {csv}");
    }
    assert_eq!(clusters_total(&app, "").await, 6, "every located row");
}

#[tokio::test]
async fn the_export_carries_derived_fields_only() {
    let app = seeded().await;
    let body: Value = app
        .client
        .get(app.url("/api/export.geojson"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let features = body["features"].as_array().unwrap();
    let first = &features[0];
    assert_eq!(first["geometry"]["coordinates"][0], 10.7461);
    let p = &first["properties"];
    assert_eq!(p["ma_id"], 1);
    assert_eq!(p["name"], "Alpha <img src=x>");
    assert_eq!(p["url"], "https://www.metal-archives.com/bands/_/1");
    assert_eq!(p["step_order"], 0);
    assert_eq!(p["step_label"], "origin");
    assert_eq!(p["town"], "Oslo");
    assert_eq!(p["town_id"], "59.9127_10.7461");
    assert_eq!(p["town_url"], format!("{BASE}{OSLO}"));
    assert_eq!(p["placed_by"], "gazetteer");
    let mut keys: Vec<&str> = p.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "country",
            "lat",
            "lon",
            "ma_id",
            "name",
            "placed_by",
            "step_label",
            "step_order",
            "town",
            "town_id",
            "town_url",
            "url"
        ],
        "derived fields only"
    );
    let text = body.to_string();
    assert!(!text.contains("Bergen <b>"), "no location text");
    let placed: Vec<&str> = features
        .iter()
        .map(|f| f["properties"]["placed_by"].as_str().unwrap())
        .collect();
    assert_eq!(
        placed,
        [
            "gazetteer",
            "geocoder",
            "gazetteer",
            "llm",
            "manual",
            "country"
        ]
    );
    let csv = app.get_text("/api/export.csv").await;
    let mut lines = csv.lines();
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("# Band Map export. Bands: Encyclopaedia Metallum")
    );
    assert_eq!(
        lines.next().unwrap(),
        "ma_id,name,url,step_order,step_label,town,town_id,town_url,country,lat,lon,placed_by"
    );
    assert_eq!(
        lines.next().unwrap(),
        format!(
            "1,\"Alpha <img src=x>\",\"https://www.metal-archives.com/bands/_/1\",0,\"origin\",\"Oslo\",\"59.9127_10.7461\",\"{BASE}{OSLO}\",\"Norway\",59.9127,10.7461,gazetteer"
        )
    );
    let res = app
        .client
        .get(app.url("/api/export.csv?family=polka"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);
    let err: Value = res.json().await.unwrap();
    assert_eq!(err["error"]["code"], "bad_request");
}

#[tokio::test]
async fn the_exports_stream_whole_when_compressed() {
    let app = seeded().await;
    for path in ["/api/export.csv", "/api/export.geojson?genre=black"] {
        let res = app
            .client
            .get(app.url(path))
            .header("accept-encoding", "gzip")
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200, "{path}");
        assert_eq!(res.headers()["content-encoding"], "gzip", "{path}");
        let body = res.bytes().await.expect("the whole body arrives");
        assert!(body.len() > 100, "{path}");
    }
}

#[tokio::test]
async fn the_exports_are_in_the_openapi_document() {
    let app = seeded().await;
    let doc = app.openapi().await;
    for path in ["/api/export.geojson", "/api/export.csv"] {
        let op = &doc["paths"][path]["get"];
        assert!(op.is_object(), "{path} documented");
        let names: Vec<&str> = op["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "country", "status", "genre", "year_min", "year_max", "family"
            ]
        );
    }
}

#[tokio::test]
async fn pages_and_exports_are_rate_limited_per_client() {
    let app = seeded_with(&[("PUBLIC_RATE_PER_SEC", "1"), ("PUBLIC_RATE_BURST", "2")]).await;
    for path in ["/band/1", OSLO, "/api/export.csv", "/sitemap.xml"] {
        let mut statuses = Vec::new();
        for _ in 0..4 {
            statuses.push(page(&app, path).await.0);
        }
        assert!(statuses.contains(&429), "{path}: {statuses:?}");
    }
    // The map's own page and its static files are not limited.
    for _ in 0..4 {
        assert_eq!(page(&app, "/map/pages.css").await.0, 200);
    }
}

/// Issue 28's pages revalidate: an ETag of the written page, `If-None-Match` → 304 with the
/// page's validators, a new ETag once the data under the page changes; a 404 page has none.
#[tokio::test]
async fn pages_carry_an_etag_and_a_repeat_is_a_304_until_the_data_changes() {
    let app = seeded().await;
    let client = no_redirects();
    let ask = |path: &str, etag: Option<&str>| {
        let mut req = client.get(app.url(path));
        if let Some(etag) = etag {
            req = req.header("if-none-match", etag);
        }
        req.send()
    };
    for path in [OSLO, "/band/1", "/sitemap.xml", "/robots.txt"] {
        let first = ask(path, None).await.unwrap();
        assert_eq!(first.status(), 200, "{path}");
        let etag = first.headers()["etag"].to_str().unwrap().to_string();
        assert!(etag.starts_with("W/\"h"), "{path}: {etag}");
        let cache = first.headers().get("cache-control").cloned();
        let vary = |h: &reqwest::header::HeaderMap| -> Vec<String> {
            h.get_all("vary")
                .iter()
                .map(|v| v.to_str().unwrap().to_ascii_lowercase())
                .collect()
        };
        let first_vary = vary(first.headers());
        let body = first.text().await.unwrap();
        let again = ask(path, Some(&etag)).await.unwrap();
        assert_eq!(again.status(), 304, "{path}");
        assert_eq!(again.headers()["etag"].to_str().unwrap(), etag, "{path}");
        assert_eq!(
            again.headers().get("cache-control"),
            cache.as_ref(),
            "{path}"
        );
        assert_eq!(vary(again.headers()), first_vary, "{path}");
        assert!(again.text().await.unwrap().is_empty(), "{path}");
        let stale = ask(path, Some("W/\"h0\"")).await.unwrap();
        assert_eq!(stale.status(), 200, "{path}");
        assert_eq!(stale.text().await.unwrap(), body, "{path}");
    }
    // HEAD names the same ETag as GET (the validator sees the page before the body goes).
    let get_etag = ask(OSLO, None).await.unwrap().headers()["etag"].clone();
    let head = client.head(app.url(OSLO)).send().await.unwrap();
    assert_eq!(head.status(), 200);
    assert_eq!(head.headers().get("etag"), Some(&get_etag));
    // The town page in English is another page, with another ETag.
    let fr = ask(OSLO, None).await.unwrap().headers()["etag"].clone();
    let en = ask(&format!("{OSLO}?lang=en"), None).await.unwrap();
    assert_eq!(en.status(), 200);
    assert_ne!(en.headers()["etag"], fr);
    // A band formed in Oslo since: the page changed, the old ETag no longer holds.
    sqlx::raw_sql(
        "INSERT INTO bands (ma_id, name, genre, country, country_code, status, formed_year, data)
         VALUES (6, 'Zeta', 'Doom Metal', 'Norway', 'NO', 'Active', 2020, '{}');
         INSERT INTO band_locations (id, ma_id, step_order, parsed_step, location_raw, city,
             country, country_code, lat, lon, geocode_status, provider)
         VALUES (61, 6, 0, 0, 'Oslo', 'Oslo', 'Norway', 'NO', 59.9127, 10.7461, 'done', 'gazetteer');",
    )
    .execute(&app.db.pool)
    .await
    .unwrap();
    app.state.read.map.reload(&app.state.pool).await.unwrap();
    let changed = ask(OSLO, Some(fr.to_str().unwrap())).await.unwrap();
    assert_eq!(changed.status(), 200);
    assert_ne!(changed.headers()["etag"], fr);
    assert!(changed.text().await.unwrap().contains("Zeta"));
    // Not-found pages carry no validator.
    let missing = ask("/band/999", None).await.unwrap();
    assert_eq!(missing.status(), 404);
    assert!(missing.headers().get("etag").is_none());
}
