//! No secret leaves (docs/reliability.md, "No secret leaves"): `bandmap all` runs the demo
//! pipeline on a private PostgreSQL with every secret set — admin password, JWT secret,
//! import token, Geoapify and LLM keys, the database password (a role of its own that must
//! log in with it) — and uses each of them (the fakes refuse a missing key). Then none of
//! them appears in any log line, in any answer of the admin API (every GET of the OpenAPI
//! document, as the logged-in admin), in the public answers, in `/metrics` when the route
//! exists, or in what the services wrote into the database for the admin to read (run
//! logs, heartbeats, audit, errors of rows).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::fault_support::*;
use bandmap_fakes::geoapify::FakeGeoapify;
use bandmap_fakes::llm::FakeLlm;
use std::time::Duration;

const DB_ROLE: &str = "bandmap_secret_app";
const DB_PASSWORD: &str = "fault-db-password-91d4e2b7";
const GEO_KEY: &str = "fault-geoapify-key-c6a05f13";
const LLM_KEY: &str = "fault-llm-key-8e27b4d9";
/// A band whose place only the LLM can resolve (the provider knows nothing of it).
const LLM_BAND: i64 = 3_549_970_001;

/// Routes answering outside the admin API that must not carry a secret either.
const PUBLIC: [&str; 7] = [
    "/healthz",
    "/readyz",
    "/api/openapi.json",
    "/api/clusters?zoom=3",
    "/api/countries",
    "/api/search?q=da",
    "/api/bands/3540001001",
];

/// Hook for `GET /metrics` (helper D's route): checked whenever it answers 200, so the
/// route is covered as soon as it exists.
const METRICS: &str = "/metrics";

fn secrets() -> [(&'static str, &'static str); 6] {
    [
        ("ADMIN_SEED_PASSWORD", ADMIN_PASSWORD),
        ("ADMIN_JWT_SECRET", JWT_SECRET),
        ("BANDMAP_IMPORT_TOKEN", IMPORT_TOKEN),
        ("GEOCODING_API_KEY", GEO_KEY),
        ("LLM_API_KEY", LLM_KEY),
        ("the database password", DB_PASSWORD),
    ]
}

/// Fails naming the secret and where it was seen.
fn assert_clean(place: &str, text: &str) {
    for (name, secret) in secrets() {
        assert!(
            !text.contains(secret),
            "{name} appears in {place}:\n{}",
            text.lines()
                .filter(|l| l.contains(secret))
                .take(5)
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

/// The body of `GET url` (streams: what arrives within two seconds), with its headers.
async fn fetch(http: &reqwest::Client, url: &str, cookie: Option<&str>) -> (u16, String) {
    let mut req = http.get(url);
    if let Some(c) = cookie {
        req = req.header("cookie", c);
    }
    let Ok(mut res) = req.send().await else {
        return (0, String::new());
    };
    let status = res.status().as_u16();
    let mut text = format!("{:?}\n", res.headers());
    let end = tokio::time::Instant::now() + Duration::from_secs(2);
    while let Ok(Ok(Some(chunk))) = tokio::time::timeout_at(end, res.chunk()).await {
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
    (status, text)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_secret_appears_in_logs_admin_answers_or_metrics() {
    let cluster = PrivateCluster::start();
    cluster.psql(
        "postgres",
        &format!("CREATE ROLE {DB_ROLE} LOGIN PASSWORD '{DB_PASSWORD}'"),
    );
    cluster.create_database("bandmap", DB_ROLE);
    let url = cluster.url_as(DB_ROLE, DB_PASSWORD, "bandmap");
    let dir = TempDir::new("secrets");
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let geo = FakeGeoapify::start().await;
    geo.require_key(GEO_KEY);
    // Only the LLM band's place reaches the provider; it knows nothing of it.
    let llm = FakeLlm::start().await;
    llm.answer(
        serde_json::json!({"city": null, "region": null, "country": "Norway", "confidence": 0.2}),
    );
    let mut env = pipeline_env(&url, port);
    for (k, v) in [
        ("GEOCODER_PROVIDER", "geoapify".to_string()),
        ("GEOCODER_BASE_URL", geo.base_url()),
        ("GEOCODING_API_KEY", GEO_KEY.to_string()),
        ("GEOCODER_MIN_DELAY", "0".to_string()),
        ("GEOCODER_MIN_JITTER", "0".to_string()),
        ("LLM_BASE_URL", llm.url()),
        ("LLM_API_KEY", LLM_KEY.to_string()),
        (
            "RUST_LOG",
            "debug,sqlx=info,hyper=info,reqwest=info,h2=info".to_string(),
        ),
    ] {
        set(&mut env, k, v);
    }
    let mut app = Bandmap::start(&dir.0, "all", &["all"], &env);
    let db = pool(&cluster.url("bandmap")).await;
    let http = client();
    let tail = || app.tail();
    wait_for("/readyz answers 200", tail, || async {
        status(&http, &format!("{base}/readyz")).await == 200
    })
    .await;

    // The import token in use, right and wrong.
    let band = serde_json::json!({
        "ma_id": LLM_BAND, "name": "Secretive", "country": "Norway", "country_code": "NO",
        "location_text": "Qzxhiddenvik", "genre": "Black Metal", "status": "Active",
        "formed_year": 1999
    });
    for token in [IMPORT_TOKEN, "wrong-token"] {
        let res = http
            .post(format!("{base}/api/import/bands"))
            .header("authorization", format!("Bearer {token}"))
            .header("content-type", "application/x-ndjson")
            .body(band.to_string())
            .send()
            .await
            .unwrap();
        let code = res.status().as_u16();
        assert_clean("the import answer", &res.text().await.unwrap());
        assert_eq!(code == 200, token == IMPORT_TOKEN);
    }
    sqlx::query(
        "INSERT INTO job_triggers (job_type, created_by) VALUES ('geocoder_enqueue', 'fault test')",
    )
    .execute(&db)
    .await
    .unwrap();
    wait_for(
        "the demo on the map, the provider and the LLM called with their keys",
        tail,
        || async {
            count(
                &db,
                "SELECT count(*) FROM band_locations WHERE geocode_status = 'done'",
            )
            .await
            .unwrap_or(0)
                >= 50
                && geo
                    .calls()
                    .iter()
                    .any(|c| c.text().contains("Qzxhiddenvik"))
                && llm.count() > 0
        },
    )
    .await;
    assert!(
        geo.calls()
            .iter()
            .all(|c| c.params.get("apiKey").map(String::as_str) == Some(GEO_KEY)),
        "every provider call carries the key"
    );
    assert!(
        llm.requests()
            .iter()
            .all(|r| r.authorization.as_deref() == Some(&format!("Bearer {LLM_KEY}"))),
        "every LLM call carries the key"
    );

    // The admin password in use, wrong then right.
    let wrong = http
        .post(format!("{base}/admin/auth/login"))
        .json(
            &serde_json::json!({"username": "admin", "password": format!("{ADMIN_PASSWORD}-not")}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), 401);
    assert_clean("a refused login", &wrong.text().await.unwrap());
    let res = http
        .post(format!("{base}/admin/auth/login"))
        .json(&serde_json::json!({"username": "admin", "password": ADMIN_PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "login");
    let cookie = res
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("bandmap_session="))
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string();
    assert_clean("the login answer", &res.text().await.unwrap());

    // Every GET of the API document, as the admin.
    let doc: serde_json::Value = http
        .get(format!("{base}/api/openapi.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let mut checked = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        if item.get("get").is_none() {
            continue;
        }
        let path = path.replace("{ma_id}", "3540001001");
        if path.contains('{') {
            continue;
        }
        let (code, text) = fetch(&http, &format!("{base}{path}"), Some(&cookie)).await;
        assert!(code < 500, "GET {path}: {code}");
        assert_clean(&format!("GET {path}"), &text);
        checked.push(path);
    }
    assert!(
        checked
            .iter()
            .filter(|p| p.starts_with("/admin/api/"))
            .count()
            >= 10,
        "the admin views were read: {checked:?}"
    );
    for path in PUBLIC {
        let (_, text) = fetch(&http, &format!("{base}{path}"), None).await;
        assert_clean(&format!("GET {path}"), &text);
    }
    let (code, text) = fetch(&http, &format!("{base}{METRICS}"), Some(&cookie)).await;
    if code == 200 {
        assert_clean("/metrics", &text);
    }

    // What the services wrote for the admin to read.
    for table in [
        "crawl_log",
        "crawl_run",
        "service_health",
        "admin_audit_log",
        "job_triggers",
        "band_locations",
        "crawl_checkpoint",
    ] {
        let rows: Vec<String> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
            "SELECT row_to_json(t)::text FROM {table} t"
        )))
        .fetch_all(&db)
        .await
        .unwrap();
        assert_clean(&format!("table {table}"), &rows.join("\n"));
    }

    // The database goes away and comes back: connection errors are logged, not the URL.
    cluster.stop();
    wait_for("/readyz says 503", tail, || async {
        status(&http, &format!("{base}/readyz")).await == 503
    })
    .await;
    cluster.start_again();
    wait_for("/readyz says 200 again", tail, || async {
        status(&http, &format!("{base}/readyz")).await == 200
    })
    .await;

    assert!(app.terminate(), "exit 0 on SIGTERM\n{}", app.tail());
    let log = app.output();
    assert!(log.lines().count() > 50, "the log was read: {log}");
    assert_clean("the log", &log);
    drop(cluster);
}
