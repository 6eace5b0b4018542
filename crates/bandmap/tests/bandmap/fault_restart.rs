//! `bandmap all` against a private PostgreSQL that is stopped and started again under it
//! (docs/reliability.md, "Database restart"): `/readyz` says 503 while the database is down
//! and 200 after, the map keeps answering from memory, and every service reconnects by
//! itself — each writes heartbeats again, and new work goes through the whole pipeline
//! (import → enqueue → geocode → map index) and a crawl runs, with no restart of the process.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::fault_support::*;

const NEW_BAND: i64 = 3_549_990_001;
const NEW_GENRE: &str = "Reconnection Doom Metal";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_service_of_all_reconnects_after_a_database_restart() {
    let (cluster, url) = cluster_with_database();
    let dir = TempDir::new("restart");
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut app = Bandmap::start(&dir.0, "all", &["all"], &pipeline_env(&url, port));
    let db = pool(&url).await;
    let http = client();
    let tail = || app.tail();

    wait_for("/readyz answers 200", tail, || async {
        status(&http, &format!("{base}/readyz")).await == 200
    })
    .await;
    wait_for(
        "the demo on the map and a heartbeat of every service",
        tail,
        || async {
            count(
                &db,
                "SELECT count(*) FROM band_locations WHERE geocode_status = 'done'",
            )
            .await
            .unwrap_or(0)
                >= 10
                && count(&db, "SELECT count(DISTINCT service) FROM service_health")
                    .await
                    .unwrap_or(0)
                    == 4
        },
    )
    .await;

    // The database goes away.
    cluster.stop();
    wait_for(
        "/readyz says 503 while the database is down",
        tail,
        || async { status(&http, &format!("{base}/readyz")).await == 503 },
    )
    .await;
    assert_eq!(status(&http, &format!("{base}/healthz")).await, 200);
    assert_eq!(
        status(&http, &format!("{base}/api/clusters?zoom=3")).await,
        200,
        "the map answers from memory while the database is down"
    );
    // Every background service meets the outage (its heartbeat cannot be written) before
    // the database comes back, so each one really has to reconnect.
    for service in bandmap_health::SERVICES {
        wait_for(&format!("{service} notices the outage"), tail, || async {
            app.output().lines().any(|l| {
                l.contains("heartbeat not written") && l.contains(&format!("\"{service}\""))
                    || l.contains("heartbeat not written")
                        && l.contains(&format!("service={service}"))
            })
        })
        .await;
    }

    // It comes back on the same port; nobody restarts the process.
    cluster.start_again();
    wait_for("/readyz says 200 after the restart", tail, || async {
        status(&http, &format!("{base}/readyz")).await == 200
    })
    .await;
    let back: f64 = sqlx::query_scalar("SELECT extract(epoch FROM now())::float8")
        .fetch_one(&db)
        .await
        .unwrap();
    wait_for("every service writes its heartbeat again", tail, || async {
        count(
            &db,
            &format!(
                "SELECT count(DISTINCT service) FROM service_health
                     WHERE last_write_at > to_timestamp({back})"
            ),
        )
        .await
        .unwrap_or(0)
            == 4
    })
    .await;

    // Work continues: a new band goes through serve (import), enqueue, the geocoder and the
    // map index (LISTEN reconnected); the crawler runs a triggered crawl.
    let band = serde_json::json!({
        "ma_id": NEW_BAND, "name": "Reconnected", "country": "Norway", "country_code": "NO",
        "location_text": "Trondheim, Trøndelag", "genre": NEW_GENRE, "status": "Active",
        "formed_year": 2001
    });
    let res = http
        .post(format!("{base}/api/import/bands"))
        .header("authorization", format!("Bearer {IMPORT_TOKEN}"))
        .header("content-type", "application/x-ndjson")
        .body(band.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(
        res.status(),
        200,
        "{}",
        res.text().await.unwrap_or_default()
    );
    sqlx::query(
        "INSERT INTO job_triggers (job_type, created_by) VALUES
         ('geocoder_enqueue', 'fault test'), ('incremental', 'fault test')",
    )
    .execute(&db)
    .await
    .unwrap();
    wait_for(
        "the crawl and the enqueue scan triggered after the restart finish",
        tail,
        || async {
            count(
                &db,
                "SELECT count(*) FROM job_triggers WHERE created_by = 'fault test' AND status = 'done'",
            )
            .await
            .unwrap_or(0)
                == 2
        },
    )
    .await;
    wait_for("the new band is geocoded", tail, || async {
        count(
            &db,
            &format!(
                "SELECT count(*) FROM band_locations WHERE ma_id = {NEW_BAND} AND geocode_status = 'done'"
            ),
        )
        .await
        .unwrap_or(0)
            >= 1
    })
    .await;
    let genre = NEW_GENRE.replace(' ', "%20");
    wait_for("the new band is on the map", tail, || async {
        match http
            .get(format!("{base}/api/clusters?zoom=18&genre={genre}"))
            .send()
            .await
        {
            Ok(r) => r
                .text()
                .await
                .is_ok_and(|t| t.contains(&NEW_BAND.to_string())),
            Err(_) => false,
        }
    })
    .await;

    assert!(app.terminate(), "exit 0 on SIGTERM\n{}", app.tail());
    drop(cluster);
}
