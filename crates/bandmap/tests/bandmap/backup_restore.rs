//! The backup drill of docs/operations.md ("Backups and a restore drill", issue 14 item 5),
//! run for real: `pg_dump -Fc` of a populated database, `pg_restore` into a fresh database,
//! then the real `bandmap migrate` on top. Afterwards every table holds the same rows
//! (bands, every location with its status, coordinates and manual override, locked
//! fields, caches, runs, accounts), the sequences continue where they were, and the
//! restored database gives the same map answers as the original.
//!
//! Needs `pg_dump` and `pg_restore` of the server's major version on `PATH` (Debian's
//! `postgresql-client`, installed with `postgresql` by scripts/lib.sh); it fails rather
//! than skips without them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_test_support::TestDb;
use bandmap_test_support::app::test_config;
use serde_json::Value;
use std::process::Command;
use tokio_util::sync::CancellationToken;

const SEED: &str = r#"
INSERT INTO bands (ma_id, name, genre, themes, country, country_code, location_text, status,
                   formed_year, label, lat, lon, locked_fields, data) VALUES
 (1, 'Alpha', 'Black Metal', 'Winter', 'Norway', 'NO', 'Oslo (early), Bergen (later)',
  'Active', 1991, 'Unsigned', 59.91, 10.75, '{}', '{"years_active": "1991-present"}'),
 (2, 'Beta', 'Death Metal', 'Gore', 'Sweden', 'SE', 'N/A', 'Split-up', 1988, NULL,
  59.33, 18.07, '{}', '{}'),
 (3, 'Gamma', 'Heavy/Power Metal', NULL, 'France', 'FR', 'Paris', 'Active', 2005, NULL,
  48.86, 2.35, '{location_text,genre}', '{}'),
 (4, 'Delta', 'Doom Metal', NULL, 'Italy', 'IT', 'Somewhere near the lake', 'On hold', 1999,
  NULL, NULL, NULL, '{}', '{}');
INSERT INTO band_locations (id, ma_id, step_order, parsed_step, step_label, location_raw, city,
                            regions, country, country_code, lat, lon, geocode_status,
                            geocode_granularity, provider, confidence, attempts, error, query) VALUES
 (11, 1, 0, 0, 'early', 'Oslo', 'Oslo', '{}', 'Norway', 'NO', 59.91, 10.75, 'done', 'city',
  'gazetteer', 0.95, 1, NULL, 'Oslo, Norway'),
 (12, 1, 1, 1, 'later', 'Bergen', 'Bergen', '{Vestland}', 'Norway', 'NO', 60.39, 5.32, 'done',
  'city', 'geoapify', 0.9, 1, NULL, 'Bergen, Vestland, Norway'),
 (21, 2, 0, 0, NULL, 'N/A', NULL, '{}', 'Sweden', 'SE', 59.33, 18.07, 'country_only',
  'country', 'centroid', 0.1, 0, NULL, NULL),
 (31, 3, -1, 0, NULL, 'Paris', 'Paris', '{}', 'France', 'FR', 48.86, 2.35, 'done', 'city',
  'manual', 1.0, 0, NULL, NULL),
 (41, 4, 0, 0, NULL, 'Somewhere near the lake', NULL, '{}', 'Italy', 'IT', NULL, NULL,
  'llm_needed', NULL, NULL, NULL, 5, 'no result', 'Somewhere near the lake, Italy'),
 (42, 4, 1, 1, NULL, 'Atlantis', 'Atlantis', '{}', 'Italy', 'IT', NULL, NULL, 'manual',
  NULL, NULL, NULL, 2, 'LLM found no city', NULL),
 (43, 4, 2, 2, NULL, 'Milano', 'Milano', '{}', 'Italy', 'IT', NULL, NULL, 'pending',
  NULL, NULL, NULL, 0, NULL, NULL),
 (44, 4, 3, 3, NULL, 'Rome', 'Rome', '{}', 'Italy', 'IT', NULL, NULL, 'error',
  NULL, NULL, NULL, 1, 'HTTP 401: invalid key', 'Rome, Italy');
INSERT INTO geocode_cache (key, provider, query, raw, lat, lon, confidence, granularity)
VALUES ('k-bergen', 'geoapify', 'Bergen, Vestland, Norway', '{"features": []}', 60.39, 5.32,
        0.9, 'city');
INSERT INTO llm_cache (key, ma_id, location_id, model, extraction, prompt_tokens,
                       completion_tokens, cost_usd, prompt, response)
VALUES ('k-lake', 4, 41, 'model-a', '{"city": null, "region": null, "country": "Italy",
        "confidence": 0.2}', 120, 30, 0.00042, 'p', 'r');
INSERT INTO crawl_run (type, status, finished_at, stats)
VALUES ('incremental', 'success', now(), '{"bands_seen": 4, "inserted": 4}');
INSERT INTO crawl_log (run_id, level, message) SELECT id, 'info', 'finished' FROM crawl_run;
INSERT INTO crawl_checkpoint (key, value) VALUES ('last_full_crawl_at', '2026-01-01T00:00:00Z');
INSERT INTO admin_users (username, password_hash)
VALUES ('admin', '$2b$12$abcdefghijklmnopqrstuuJ1Z2z3y4x5w6v7u8t9s0r1q2p3o4n5m');
"#;

/// Every row of every table of the application (PostGIS's own `spatial_ref_sys` aside), as
/// JSON, in a stable order.
async fn contents(pool: &sqlx::PgPool) -> Value {
    let tables: Vec<String> = sqlx::query_scalar(
        "SELECT table_name::text FROM information_schema.tables
         WHERE table_schema = 'public' AND table_type = 'BASE TABLE'
           AND table_name <> 'spatial_ref_sys'
         ORDER BY 1",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    let mut out = serde_json::Map::new();
    for t in tables {
        let rows: Value = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
            "SELECT coalesce(jsonb_agg(to_jsonb(x) ORDER BY to_jsonb(x)::text), '[]')
             FROM \"{t}\" x"
        )))
        .fetch_one(pool)
        .await
        .unwrap();
        out.insert(t, rows);
    }
    let sequences: Value = sqlx::query_scalar(
        "SELECT coalesce(jsonb_object_agg(sequencename, last_value), '{}') FROM pg_sequences
         WHERE schemaname = 'public'",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    out.insert("(sequences)".into(), sequences);
    Value::Object(out)
}

fn run(cmd: &mut Command, what: &str) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run it ({e}); install postgresql-client"));
    assert!(
        out.status.success(),
        "{what} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Serves the real app on `pool` and returns the bodies of a few map requests.
async fn map_answers(db: &TestDb) -> Vec<Value> {
    let config = test_config(&db.url, &[]);
    let state = bandmap_api::AppState::new(db.pool.clone(), config);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let stop = CancellationToken::new();
    tokio::spawn(bandmap_api::server::serve_on(listener, state, stop.clone()));
    let _stop = stop.drop_guard();
    let mut answers = Vec::new();
    for path in [
        "/api/clusters?zoom=3",
        "/api/clusters?zoom=8&bbox=4,58,12,62",
        "/api/clusters?zoom=3&country=NO",
        "/api/countries",
        "/api/bands/1",
        "/api/bands/4",
    ] {
        let res = reqwest::get(format!("{base}{path}")).await.unwrap();
        assert_eq!(res.status(), 200, "{path}");
        answers.push(res.json().await.unwrap());
    }
    answers
}

#[tokio::test]
async fn a_dump_restored_into_a_fresh_database_gives_the_same_data_and_map() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let live = TestDb::new().await;
    sqlx::raw_sql(SEED).execute(&live.pool).await.unwrap();

    let dir = std::env::temp_dir().join(format!("bandmap-backup-{}", live.name));
    std::fs::create_dir_all(&dir).unwrap();
    let dump = dir.join("bandmap.dump");
    run(
        Command::new("pg_dump")
            .args(["-Fc", "-f"])
            .arg(&dump)
            .args(["-d", &live.url]),
        "pg_dump",
    );

    let restored = TestDb::empty().await;
    run(
        Command::new("pg_restore")
            .args(["--no-owner", "--exit-on-error", "-d", &restored.url])
            .arg(&dump),
        "pg_restore",
    );
    let migrated = run(
        Command::new(env!("CARGO_BIN_EXE_bandmap"))
            .arg("migrate")
            .current_dir(&dir)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("DATABASE_URL", &restored.url),
        "bandmap migrate",
    );
    assert!(
        migrated
            .lines()
            .any(|l| l.starts_with("migrations: 0 applied")),
        "the dump already holds every migration: {migrated}"
    );
    let _ = std::fs::remove_dir_all(&dir);

    let before = contents(&live.pool).await;
    let after = contents(&restored.pool).await;
    assert_eq!(before["bands"].as_array().unwrap().len(), 4);
    assert_eq!(before["band_locations"].as_array().unwrap().len(), 8);
    for (table, rows) in before.as_object().unwrap() {
        assert_eq!(
            &after[table], rows,
            "table {table} differs after the restore"
        );
    }
    assert_eq!(before, after);

    let live_map = map_answers(&live).await;
    let restored_map = map_answers(&restored).await;
    assert!(
        live_map[0]["features"]
            .as_array()
            .is_some_and(|f| !f.is_empty()),
        "the map shows points"
    );
    assert_eq!(live_map, restored_map);

    // The restored database is live: the next run takes the id after the seeded one (its
    // sequence came back with the data).
    let next: i64 = sqlx::query_scalar("SELECT nextval('crawl_run_id_seq')")
        .fetch_one(&restored.pool)
        .await
        .unwrap();
    assert_eq!(next, 2);
}
