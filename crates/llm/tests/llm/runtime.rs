//! `bandmap llm` alone on the one service runtime: a panic in one row's work is caught and
//! logged, and the loop goes on to the next row (before the runtime, it ended the process).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common::*;
use bandmap_fakes::llm::FakeLlm;
use bandmap_geocode::{PlaceQuery, Resolution};
use bandmap_llm::service::run_worker;
use bandmap_llm::{Caller, ChatClient, CityResolver, VirtualPacer, Worker};
use bandmap_runtime::testing::capture;
use bandmap_test_support::TestDb;
use secrecy::SecretString;
use serde_json::json;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

const PANIC: &str = "resolver panics on Kolbotn";

/// The fake resolver, except that resolving Kolbotn panics.
struct PanicsOnKolbotn(FakeResolver);

impl CityResolver for PanicsOnKolbotn {
    fn resolve(&self, q: &PlaceQuery) -> impl Future<Output = Resolution> + Send {
        if q.city == "Kolbotn" {
            panic!("{PANIC}");
        }
        self.0.resolve(q)
    }
}

#[tokio::test]
async fn a_panicking_row_is_caught_logged_and_the_next_row_is_processed() {
    let (_guard, logs) = capture();
    let db = TestDb::new().await;
    let llm = FakeLlm::start().await;
    llm.answer_for(
        "Kolbotn",
        json!({"city": "Kolbotn", "region": "Viken", "country": "Norway", "confidence": 0.9}),
    );
    llm.answer_for(
        "Bergen",
        json!({"city": "Bergen", "region": "Vestland", "country": "Norway", "confidence": 0.9}),
    );
    let resolver = FakeResolver::default();
    resolver.accept("Bergen", 60.39, 5.32, "gazetteer");
    let first = llm_row(&db.pool, 1, "Darkthrone", "Kolbotn, Viken").await;
    let second = llm_row(&db.pool, 2, "Immortal", "Bergen, Vestland").await;
    let client = ChatClient::new(
        &url::Url::parse(&llm.url()).unwrap(),
        SecretString::from("gsk_test_key"),
        Duration::from_secs(10),
    )
    .unwrap();
    let pacer = Arc::new(VirtualPacer::default());
    let caller = Caller::new(db.pool.clone(), client, settings(), pacer);
    let worker = Worker::new(db.pool.clone(), Some(caller), PanicsOnKolbotn(resolver));

    let shutdown = CancellationToken::new();
    let stop = shutdown.clone();
    let service = tokio::spawn(run_worker(
        db.pool.clone(),
        worker,
        bandmap_runtime::Heartbeat::new("local", Duration::from_secs(3600)),
        Duration::from_millis(10),
        shutdown,
    ));
    // Both rows are claimed in turn, in whichever order; wait until both were worked on.
    let mut status = String::new();
    for _ in 0..400 {
        status = row(&db.pool, second).await.geocode_status;
        if status == "done" && logs.text().contains(PANIC) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    stop.cancel();
    service.await.unwrap().unwrap();

    assert_eq!(status, "done", "the row after the panic was processed");
    assert_eq!(
        row(&db.pool, first).await.geocode_status,
        "llm_needed",
        "the panicked row is left to its lease"
    );
    let panicked = logs.lines_with(&["unit of work panicked", "llm", PANIC]);
    assert_eq!(panicked.len(), 1, "logged once: {}", logs.text());
}
