//! `kill -9` of `bandmap all` in the middle of geocoding and crawling, then a restart
//! (docs/reliability.md, "Kill -9"): no `band_locations` row stays `processing`, no run
//! stays `running`, and the rows the dead process held are geocoded by the new one.
//!
//! The geocoder's self-repair takes back a `processing` row once its claim is older than
//! `STUCK_AFTER` (10 minutes: a live worker may still hold it, and claims carry no owner).
//! The test does not wait ten minutes: after the kill it ages the dead process's claims by
//! that much — exactly what the clock would have done — and the restarted process must do
//! the rest by itself.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::fault_support::*;
use bandmap_fakes::geoapify::FakeGeoapify;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_kill_9_and_a_restart_no_row_stays_processing_and_no_run_running() {
    let (cluster, url) = cluster_with_database();
    let dir = TempDir::new("kill");
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let geo = FakeGeoapify::start().await;
    geo.answer_every_text_as_city(0.95);
    // Slow answers: calls are in flight (rows `processing`) when the process dies.
    geo.set_delay(Duration::from_secs(30));
    let mut env = pipeline_env(&url, port);
    for (k, v) in [
        ("GEOCODER_PROVIDER", "geoapify".to_string()),
        ("GEOCODER_BASE_URL", geo.base_url()),
        ("GEOCODING_API_KEY", "fault-geoapify-key".to_string()),
        ("GEOCODER_OFFLINE", "off".to_string()),
        ("GEOCODER_MIN_DELAY", "0".to_string()),
        ("GEOCODER_MIN_JITTER", "0".to_string()),
        // Slow crawl: a run is `running` when the process dies.
        ("CRAWLER_DELAY_MS", "300".to_string()),
    ] {
        set(&mut env, k, v);
    }
    let mut first = Bandmap::start(&dir.0, "first", &["all"], &env);
    let db = pool(&url).await;
    let tail = || first.tail();
    wait_for(
        "rows processing and a run running in the first process",
        tail,
        || async {
            count(
                &db,
                "SELECT count(*) FROM band_locations WHERE geocode_status = 'processing'",
            )
            .await
            .unwrap_or(0)
                > 0
                && count(
                    &db,
                    "SELECT count(*) FROM crawl_run WHERE status = 'running'",
                )
                .await
                .unwrap_or(0)
                    > 0
        },
    )
    .await;

    first.kill9();
    let held: Vec<i64> = sqlx::query_scalar(
        "SELECT id FROM band_locations WHERE geocode_status = 'processing' ORDER BY id",
    )
    .fetch_all(&db)
    .await
    .unwrap();
    let running: Vec<i64> =
        sqlx::query_scalar("SELECT id FROM crawl_run WHERE status = 'running' ORDER BY id")
            .fetch_all(&db)
            .await
            .unwrap();
    assert!(!held.is_empty(), "the kill left rows processing");
    assert!(!running.is_empty(), "the kill left a run running");
    // Ten minutes pass (see the header): the dead process's claims are that old.
    sqlx::query(
        "UPDATE band_locations SET claimed_at = claimed_at - interval '11 minutes'
         WHERE geocode_status = 'processing'",
    )
    .execute(&db)
    .await
    .unwrap();

    geo.set_delay(Duration::ZERO);
    set(&mut env, "CRAWLER_DELAY_MS", "0");
    let mut second = Bandmap::start(&dir.0, "second", &["all"], &env);
    let tail = || second.tail();
    wait_for("the restarted server is ready", tail, || async {
        status(&client(), &format!("{base}/readyz")).await == 200
    })
    .await;
    wait_for_pipeline(
        "the dead process's rows are geocoded and its runs closed",
        &second,
        &db,
        || async {
            let ids = held
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(",");
            let runs = running
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(",");
            count(
                &db,
                &format!(
                    "SELECT count(*) FROM band_locations WHERE id IN ({ids}) AND geocode_status = 'done'"
                ),
            )
            .await
                == Some(held.len() as i64)
                && count(
                    &db,
                    &format!(
                        "SELECT count(*) FROM crawl_run WHERE id IN ({runs}) AND status = 'interrupted'"
                    ),
                )
                .await
                    == Some(running.len() as i64)
        },
    )
    .await;
    wait_for_pipeline(
        "the pipeline drains: nothing processing, pending or running",
        &second,
        &db,
        || async {
            count(
                &db,
                "SELECT (SELECT count(*) FROM band_locations
                         WHERE geocode_status IN ('processing', 'pending'))
                      + (SELECT count(*) FROM crawl_run WHERE status = 'running')",
            )
            .await
                == Some(0)
        },
    )
    .await;
    let closed: Vec<Option<String>> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT error FROM crawl_run WHERE id IN ({}) ORDER BY id",
        running
            .iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(",")
    )))
    .fetch_all(&db)
    .await
    .unwrap();
    assert!(
        closed
            .iter()
            .all(|e| e.as_deref().is_some_and(|e| e.contains("restarted"))),
        "each run of the dead process says why it was closed: {closed:?}"
    );
    assert!(second.terminate(), "exit 0 on SIGTERM\n{}", second.tail());
    drop(cluster);
}
