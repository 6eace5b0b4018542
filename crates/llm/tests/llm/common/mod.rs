//! Shared helpers of the LLM worker tests: a band with an `llm_needed` row, a worker wired
//! to the fake API with a virtual pacer, and a fake city resolver.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use bandmap_fakes::llm::FakeLlm;
use bandmap_geocode::{PlaceQuery, Resolution, Resolved};
use bandmap_llm::{Caller, ChatClient, CityResolver, LlmSettings, VirtualPacer, Worker};
use secrecy::SecretString;
use sqlx::PgPool;
use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub const PRIMARY: &str = "llama-3.3-70b-versatile";
pub const FALLBACK: &str = "llama-3.1-8b-instant";

/// A resolver answering from a map city → outcome (default: rejected), recording queries.
#[derive(Debug, Default, Clone)]
pub struct FakeResolver {
    pub answers: Arc<Mutex<HashMap<String, Resolution>>>,
    pub seen: Arc<Mutex<Vec<PlaceQuery>>>,
}

impl FakeResolver {
    pub fn accept(&self, city: &str, lat: f64, lon: f64, provider: &str) {
        self.answers.lock().unwrap().insert(
            city.to_string(),
            Resolution::Accepted(Resolved {
                lat,
                lon,
                provider: provider.to_string(),
                confidence: 0.93,
                granularity: "city".into(),
                query: format!("{city} (gazetteer)"),
            }),
        );
    }
    pub fn set(&self, city: &str, outcome: Resolution) {
        self.answers
            .lock()
            .unwrap()
            .insert(city.to_string(), outcome);
    }
    pub fn seen(&self) -> Vec<PlaceQuery> {
        self.seen.lock().unwrap().clone()
    }
}

impl CityResolver for FakeResolver {
    fn resolve(&self, q: &PlaceQuery) -> impl Future<Output = Resolution> + Send {
        self.seen.lock().unwrap().push(q.clone());
        let out = self
            .answers
            .lock()
            .unwrap()
            .get(&q.city)
            .cloned()
            .unwrap_or(Resolution::Rejected {
                error: "no result above threshold".into(),
                queries: vec![format!(
                    "{}, {}",
                    q.city,
                    q.country_name.clone().unwrap_or_default()
                )],
            });
        std::future::ready(out)
    }
}

pub fn settings() -> LlmSettings {
    let mut s = LlmSettings::defaults(PRIMARY, FALLBACK);
    s.request_timeout = Duration::from_secs(10);
    s
}

pub struct Rig {
    pub worker: Worker<FakeResolver>,
    pub resolver: FakeResolver,
    pub pacer: VirtualPacer,
}

pub fn rig(pool: &PgPool, llm: &FakeLlm) -> Rig {
    rig_with(pool, llm, settings())
}

pub fn rig_with(pool: &PgPool, llm: &FakeLlm, settings: LlmSettings) -> Rig {
    let pacer = VirtualPacer::default();
    let client = ChatClient::new(
        &url::Url::parse(&llm.url()).unwrap(),
        SecretString::from("gsk_test_key"),
        settings.request_timeout,
    )
    .unwrap();
    let caller = Caller::new(pool.clone(), client, settings, Arc::new(pacer.clone()));
    let resolver = FakeResolver::default();
    Rig {
        worker: Worker::new(pool.clone(), Some(caller), resolver.clone()),
        resolver,
        pacer,
    }
}

/// The geocoder's error when it hands a row over (see [`llm_row`]).
pub const GEOCODER_ERROR: &str = "no result above threshold";

/// Inserts a Norwegian band and one row handed to the LLM the way the geocoder does it
/// (`processing` → `llm_needed` with its query and error, `record_failure`); returns the id.
pub async fn llm_row(pool: &PgPool, ma_id: i64, name: &str, place: &str) -> i64 {
    sqlx::query(
        "INSERT INTO bands (ma_id, name, country, country_code, location_text)
         VALUES ($1, $2, 'Norway', 'NO', $3) ON CONFLICT (ma_id) DO NOTHING",
    )
    .bind(ma_id)
    .bind(name)
    .bind(format!("{place} (early); Oslo (later)"))
    .execute(pool)
    .await
    .unwrap();
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO band_locations (ma_id, step_order, parsed_step, location_raw, country,
             country_code, geocode_status, attempts, claimed_at)
         VALUES ($1, 0, 0, $2, 'Norway', 'NO', 'processing', 2, now())
         RETURNING id",
    )
    .bind(ma_id)
    .bind(place)
    .fetch_one(pool)
    .await
    .unwrap();
    geocoder_hands_over(pool, id, place).await;
    id
}

/// What the geocoder does when it gives up on a row: claim it (`processing`), then
/// `llm_needed` with its own query and error, due now.
pub async fn geocoder_hands_over(pool: &PgPool, id: i64, place: &str) {
    sqlx::query(
        "UPDATE band_locations SET geocode_status = 'processing', claimed_at = now(),
             lat = NULL, lon = NULL, provider = NULL
         WHERE id = $1",
    )
    .bind(id)
    .execute(pool)
    .await
    .unwrap();
    sqlx::query(
        "UPDATE band_locations SET geocode_status = 'llm_needed', attempts = attempts + 1,
             error = $3, query = $2, claimed_at = NULL, next_attempt_at = now() - interval '1 second'
         WHERE id = $1 AND geocode_status = 'processing'",
    )
    .bind(id)
    .bind(format!("{place}, Norway"))
    .bind(GEOCODER_ERROR)
    .execute(pool)
    .await
    .unwrap();
}

/// Makes a row that the worker left `llm_needed` due now, touching nothing else: the time
/// passing until its backoff is over. (Its `error` is the worker's own by then.)
pub async fn make_due(pool: &PgPool, id: i64) {
    sqlx::query(
        "UPDATE band_locations SET next_attempt_at = now() - interval '1 second' WHERE id = $1",
    )
    .bind(id)
    .execute(pool)
    .await
    .unwrap();
}

#[derive(Debug, sqlx::FromRow)]
pub struct RowState {
    pub geocode_status: String,
    pub provider: Option<String>,
    pub lat: Option<f64>,
    pub lon: Option<f64>,
    pub confidence: Option<f64>,
    pub geocode_granularity: Option<String>,
    pub query: Option<String>,
    pub error: Option<String>,
    pub attempts: i32,
    pub retry_in_secs: f64,
}

pub async fn row(pool: &PgPool, id: i64) -> RowState {
    sqlx::query_as(
        "SELECT geocode_status, provider, lat, lon, confidence, geocode_granularity, query,
                error, attempts,
                EXTRACT(EPOCH FROM next_attempt_at - now())::float8 AS retry_in_secs
         FROM band_locations WHERE id = $1",
    )
    .bind(id)
    .fetch_one(pool)
    .await
    .unwrap()
}

/// Makes a row due again with its original geocoder query and error.
pub async fn requeue(pool: &PgPool, id: i64, place: &str) {
    sqlx::query(
        "UPDATE band_locations SET geocode_status = 'llm_needed', lat = NULL, lon = NULL,
             provider = NULL, error = 'no result above threshold', query = $2,
             next_attempt_at = now() - interval '1 second'
         WHERE id = $1",
    )
    .bind(id)
    .bind(format!("{place}, Norway"))
    .execute(pool)
    .await
    .unwrap();
}

#[derive(Debug, sqlx::FromRow)]
pub struct CacheRow {
    pub key: String,
    pub ma_id: Option<i64>,
    pub location_id: Option<i64>,
    pub location_raw: Option<String>,
    pub country: Option<String>,
    pub model: String,
    pub extraction: Option<serde_json::Value>,
    pub prompt_tokens: Option<i32>,
    pub completion_tokens: Option<i32>,
    pub cost: Option<f64>,
    pub prompt: Option<String>,
    pub response: Option<String>,
}

pub async fn cache_rows(pool: &PgPool) -> Vec<CacheRow> {
    sqlx::query_as(
        "SELECT key, ma_id, location_id, location_raw, country, model, extraction,
                prompt_tokens, completion_tokens, cost_usd::float8 AS cost, prompt, response
         FROM llm_cache ORDER BY id",
    )
    .fetch_all(pool)
    .await
    .unwrap()
}
