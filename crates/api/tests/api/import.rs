#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `POST /api/import/bands` and `import_file` against a real server and database: the
//! bearer token (missing, wrong, multi-byte, unset), NDJSON and array bodies, all-or-nothing
//! validation, re-import counts, locked fields and conflicts through the shared upsert path.

use bandmap_test_support::app::IMPORT_TOKEN;
use bandmap_test_support::{TestApp, spawn_app, spawn_app_with};
use reqwest::header::HeaderValue;
use serde_json::{Value, json};

const TWO_BANDS: &str = concat!(
    r#"{"ma_id": 1, "name": "Mayhem", "country": "Norway", "country_code": "NO", "location_text": "Oslo", "genre": "Black Metal", "themes": "Death", "status": "Active", "formed_year": 1984, "label": "Century Media", "url": "https://www.metal-archives.com/bands/Mayhem/1"}"#,
    "\n\n",
    r#"{"ma_id": 2, "name": "Darkthrone\u0007", "country_code": "no"}"#,
    "\n"
);

async fn import(
    app: &TestApp,
    auth: Option<HeaderValue>,
    body: impl Into<reqwest::Body>,
) -> (u16, Value) {
    let mut req = app
        .client
        .post(app.url("/api/import/bands"))
        .header("content-type", "application/x-ndjson")
        .body(body);
    if let Some(a) = auth {
        req = req.header("authorization", a);
    }
    let res = req.send().await.unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

fn bearer(token: &str) -> Option<HeaderValue> {
    Some(HeaderValue::from_bytes(format!("Bearer {token}").as_bytes()).unwrap())
}

async fn band_count(app: &TestApp) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM bands")
        .fetch_one(&app.db.pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn the_token_is_required_and_compared_exactly() {
    let app = spawn_app().await;
    for (auth, why) in [
        (None, "missing"),
        (bearer("wrong"), "wrong"),
        (bearer(&format!("{IMPORT_TOKEN}x")), "longer"),
        (bearer(&IMPORT_TOKEN[..IMPORT_TOKEN.len() - 1]), "prefix"),
        (bearer("tökén-ünïcode"), "multi-byte"),
        (
            Some(HeaderValue::from_bytes(b"Bearer \xff\xfe").unwrap()),
            "invalid utf-8",
        ),
        (
            Some(HeaderValue::from_str(IMPORT_TOKEN).unwrap()),
            "no scheme",
        ),
        (
            Some(HeaderValue::from_str(&format!("Basic {IMPORT_TOKEN}")).unwrap()),
            "basic",
        ),
    ] {
        let (status, body) = import(&app, auth, TWO_BANDS).await;
        assert_eq!(status, 401, "{why}");
        assert_eq!(body["error"]["code"], "unauthorized", "{why}");
    }
    assert_eq!(band_count(&app).await, 0);
}

#[tokio::test]
async fn an_unset_token_refuses_everyone() {
    let app = spawn_app_with(&[("BANDMAP_IMPORT_TOKEN", "")], None).await;
    let (status, _) = import(&app, bearer(IMPORT_TOKEN), TWO_BANDS).await;
    assert_eq!(status, 401);
    let (status, _) = import(&app, bearer(""), TWO_BANDS).await;
    assert_eq!(status, 401);
    assert_eq!(band_count(&app).await, 0);
}

#[tokio::test]
async fn ndjson_imports_then_reimport_is_unchanged() {
    let app = spawn_app().await;
    let (status, body) = import(&app, bearer(IMPORT_TOKEN), TWO_BANDS).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!({"inserted": 2, "updated": 0, "unchanged": 0}));
    let (name, code, url): (String, Option<String>, Option<String>) =
        sqlx::query_as("SELECT name, country_code, data->>'url' FROM bands WHERE ma_id = 2")
            .fetch_one(&app.db.pool)
            .await
            .unwrap();
    assert_eq!(name, "Darkthrone", "control character removed");
    assert_eq!(code.as_deref(), Some("NO"));
    assert_eq!(url, None);
    let (status, body) = import(&app, bearer(IMPORT_TOKEN), TWO_BANDS).await;
    assert_eq!(status, 200);
    assert_eq!(body, json!({"inserted": 0, "updated": 0, "unchanged": 2}));
}

#[tokio::test]
async fn a_json_array_is_accepted_too() {
    let app = spawn_app().await;
    let body = json!([
        {"ma_id": 10, "name": "Bathory", "country": "Sweden", "formed_year": 1983},
        {"ma_id": 11, "name": "Candlemass"},
    ]);
    let (status, res) = import(&app, bearer(IMPORT_TOKEN), body.to_string()).await;
    assert_eq!(status, 200, "{res}");
    assert_eq!(res, json!({"inserted": 2, "updated": 0, "unchanged": 0}));
    let changed = json!([{"ma_id": 10, "name": "Bathory", "formed_year": 1984}, {"ma_id": 11, "name": "Candlemass"}]);
    let (_, res) = import(&app, bearer(IMPORT_TOKEN), changed.to_string()).await;
    assert_eq!(res, json!({"inserted": 0, "updated": 1, "unchanged": 1}));
}

#[tokio::test]
async fn one_bad_object_rejects_the_whole_request() {
    let app = spawn_app().await;
    let bodies = [
        format!("{TWO_BANDS}{{\"ma_id\": 3, \"name\": \"X\", \"bogus\": 1}}\n"),
        format!("{TWO_BANDS}{{\"ma_id\": 0, \"name\": \"X\"}}\n"),
        format!("{TWO_BANDS}{{\"ma_id\": 3}}\n"),
        format!("{TWO_BANDS}{{\"ma_id\": 3, \"name\": \"X\", \"formed_year\": \"1990\"}}\n"),
        format!("{TWO_BANDS}not json\n"),
        r#"[{"ma_id": 1, "name": "A"}, {"ma_id": 2, "name": "B", "geom": "x"}]"#.to_string(),
        r#"[{"ma_id": 1, "name": "A"}"#.to_string(),
    ];
    for body in bodies {
        let (status, res) = import(&app, bearer(IMPORT_TOKEN), body.clone()).await;
        assert_eq!(status, 400, "{body}");
        assert_eq!(res["error"]["code"], "bad_request");
        assert_eq!(band_count(&app).await, 0, "nothing written: {body}");
    }
    let (_, res) = import(
        &app,
        bearer(IMPORT_TOKEN),
        format!("{TWO_BANDS}{{\"ma_id\": 3, \"name\": \"X\", \"bogus\": 1}}\n"),
    )
    .await;
    let msg = res["error"]["message"].as_str().unwrap();
    assert!(msg.contains("line 4") && msg.contains("bogus"), "{msg}");
}

#[tokio::test]
async fn a_locked_field_survives_an_import_and_the_conflict_is_recorded() {
    let app = spawn_app().await;
    import(&app, bearer(IMPORT_TOKEN), TWO_BANDS).await;
    sqlx::query(
        "UPDATE bands SET genre = 'Raw Black Metal', locked_fields = '{genre}' WHERE ma_id = 1",
    )
    .execute(&app.db.pool)
    .await
    .unwrap();
    let body = TWO_BANDS.replace("\"Black Metal\"", "\"Symphonic Black Metal\"");
    let (status, res) = import(&app, bearer(IMPORT_TOKEN), body).await;
    assert_eq!(status, 200);
    assert_eq!(res, json!({"inserted": 0, "updated": 1, "unchanged": 1}));
    let (genre, pending): (Option<String>, Value) =
        sqlx::query_as("SELECT genre, crawler_pending FROM bands WHERE ma_id = 1")
            .fetch_one(&app.db.pool)
            .await
            .unwrap();
    assert_eq!(genre.as_deref(), Some("Raw Black Metal"));
    assert_eq!(pending, json!({"genre": "Symphonic Black Metal"}));
}

#[tokio::test]
async fn bodies_over_50_mb_are_413_with_our_json() {
    let app = spawn_app().await;
    let body = vec![b' '; 50 * 1024 * 1024 + 1];
    let (status, res) = import(&app, bearer(IMPORT_TOKEN), body).await;
    assert_eq!(status, 413);
    assert_eq!(res["error"]["code"], "bad_request");
}

#[tokio::test]
async fn import_file_shares_the_path() {
    let app = spawn_app().await;
    let path = std::env::temp_dir().join(format!("bandmap-import-{}.ndjson", std::process::id()));
    std::fs::write(&path, TWO_BANDS).unwrap();
    let report = bandmap_import::import_file(&app.db.pool, &path)
        .await
        .unwrap();
    assert_eq!(
        (report.inserted, report.updated, report.unchanged),
        (2, 0, 0)
    );
    let report = bandmap_import::import_file(&app.db.pool, &path)
        .await
        .unwrap();
    assert_eq!(report.unchanged, 2);
    std::fs::write(&path, "{\"ma_id\": 5, \"name\": \"X\", \"nope\": 1}\n").unwrap();
    let err = bandmap_import::import_file(&app.db.pool, &path)
        .await
        .unwrap_err();
    assert!(
        matches!(err, bandmap_import::ImportError::Invalid(_)),
        "{err}"
    );
    std::fs::remove_file(&path).unwrap();
    let err = bandmap_import::import_file(&app.db.pool, &path)
        .await
        .unwrap_err();
    assert!(
        matches!(err, bandmap_import::ImportError::Io { .. }),
        "{err}"
    );
    assert_eq!(band_count(&app).await, 2);
}
