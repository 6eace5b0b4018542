//! Throughput of the LLM worker against the loopback fake API and a real PostgreSQL:
//! rows per second for fresh calls and for cache hits. Prints figures; asserts nothing
//! about time.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../tests/llm/common/mod.rs"]
mod common;

use bandmap_fakes::llm::FakeLlm;
use bandmap_llm::Outcome;
use bandmap_test_support::TestDb;
use common::*;
use serde_json::json;
use std::time::Instant;

const ROWS: i64 = 300;

fn main() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let db = TestDb::new().await;
        let llm = FakeLlm::start().await;
        llm.answer(
            json!({"city": "Kolbotn", "region": null, "country": "Norway", "confidence": 0.9}),
        );
        let mut s = settings();
        // Local limits out of the way: this measures the worker, not the free tier.
        s.primary.limits.rpm = u32::MAX;
        s.primary.limits.tpm = u32::MAX;
        let r = rig_with(&db.pool, &llm, s);
        r.resolver.accept("Kolbotn", 59.81, 10.8, "gazetteer");
        let mut ids = Vec::new();
        for i in 0..ROWS {
            ids.push(llm_row(&db.pool, i + 1, &format!("Band {i}"), &format!("Place {i}")).await);
        }
        let t = Instant::now();
        let mut done = 0;
        while let Outcome::Done { .. } = r.worker.run_once().await.unwrap() {
            done += 1;
        }
        let fresh = t.elapsed();
        for (i, id) in ids.iter().enumerate() {
            geocoder_hands_over(&db.pool, *id, &format!("Place {i}")).await;
        }
        let t = Instant::now();
        let mut hits = 0;
        while let Outcome::Done { cached: true, .. } = r.worker.run_once().await.unwrap() {
            hits += 1;
        }
        let cached = t.elapsed();
        println!(
            "llm worker: {done} fresh rows in {:.2?} ({:.0} rows/s, fake API on loopback); \
             {hits} cache hits in {:.2?} ({:.0} rows/s); API calls {}",
            fresh,
            f64::from(done) / fresh.as_secs_f64(),
            cached,
            f64::from(hits) / cached.as_secs_f64(),
            llm.count()
        );
    });
}
