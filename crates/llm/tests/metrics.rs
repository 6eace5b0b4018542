//! The LLM worker's metrics (issue 14 item 2) after real calls to the fake OpenAI-compatible
//! API: every request counted per model and outcome (two 500s, then an answer), and the
//! answer's tokens and cost equal to what `llm_cache` recorded. One test function: the
//! recorder is process-wide.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "llm/common/mod.rs"]
mod common;

use bandmap_fakes::llm::{FakeLlm, LlmFault};
use bandmap_llm::Outcome;
use bandmap_test_support::TestDb;
use common::*;
use prometheus_parse::{Scrape, Value};
use serde_json::json;

fn number(scrape: &Scrape, metric: &str, labels: &[(&str, &str)]) -> f64 {
    let found = scrape
        .samples
        .iter()
        .find(|s| s.metric == metric && labels.iter().all(|(k, v)| s.labels.get(k) == Some(*v)));
    match found.map(|s| &s.value) {
        Some(Value::Counter(v) | Value::Gauge(v) | Value::Untyped(v)) => *v,
        other => panic!("{metric} {labels:?}: no number sample (got {other:?})"),
    }
}

#[tokio::test]
async fn calls_tokens_and_cost_per_model() {
    bandmap_metrics::install().unwrap();
    let db = TestDb::new().await;
    let llm = FakeLlm::start().await;
    llm.answer_for(
        "Kolbotn",
        json!({"city": "Kolbotn", "region": "Viken", "country": "Norway", "confidence": 0.9}),
    );
    llm.fail_next("*", LlmFault::ServerError, 2);
    let r = rig(&db.pool, &llm);
    r.resolver.accept("Kolbotn", 59.81, 10.8, "gazetteer");
    llm_row(&db.pool, 1, "Darkthrone", "Kolbotn, Viken").await;
    assert!(matches!(
        r.worker.run_once().await.unwrap(),
        Outcome::Done { .. }
    ));
    let rows = cache_rows(&db.pool).await;
    assert_eq!(rows.len(), 1);
    let (prompt, completion) = (
        f64::from(rows[0].prompt_tokens.unwrap()),
        f64::from(rows[0].completion_tokens.unwrap()),
    );
    let cost = rows[0].cost.unwrap();
    assert!(cost > 0.0);

    let text = bandmap_metrics::render();
    let scrape = Scrape::parse(text.lines().map(|l| Ok(l.to_string()))).unwrap();
    let calls = "bandmap_llm_api_calls_total";
    let model = ("model", PRIMARY);
    assert_eq!(
        number(&scrape, calls, &[model, ("outcome", "server_error")]),
        2.0
    );
    assert_eq!(number(&scrape, calls, &[model, ("outcome", "ok")]), 1.0);
    let tokens = "bandmap_llm_tokens_total";
    assert_eq!(
        number(&scrape, tokens, &[model, ("kind", "prompt")]),
        prompt
    );
    assert_eq!(
        number(&scrape, tokens, &[model, ("kind", "completion")]),
        completion
    );
    let spent = number(&scrape, "bandmap_llm_cost_usd", &[model]);
    assert!((spent - cost).abs() < 1e-9, "{spent} vs {cost}");
    assert!(
        !scrape
            .samples
            .iter()
            .any(|s| s.labels.get("model") == Some(FALLBACK)),
        "the fallback model was never asked"
    );
}
