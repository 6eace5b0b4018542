//! `activity_counters` (migration 022): the hourly counts behind the admin console's
//! charts (issue 17). Rows entering an outcome are counted by a trigger of the migration;
//! this module writes the counts the database cannot see — provider calls and their
//! errors ([`counted`], the geocoder's one hook), LLM cache hits ([`bump`]) — and reads the
//! series back ([`geocoding_series`], [`llm_days`], [`llm_month`]).
//!
//! Every write adds to the row of the writer's own database backend, so concurrent writers
//! never wait on one another; readers sum over backends. A failed counter write is logged
//! and ignored: a chart must never stop the work it counts.

use crate::Result;
use chrono::{DateTime, Utc};
use sqlx::{PgExecutor, PgPool};
use std::future::Future;

/// A count the services report (the outcome counts come from the trigger).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counter {
    /// One call to the external geocoding provider (after its own retries).
    ProviderCall,
    /// A provider call that ended in an error.
    ProviderError,
    /// An LLM extraction served from `llm_cache` without an API call.
    LlmCacheHit,
}

impl Counter {
    /// The `metric` column value.
    pub fn metric(self) -> &'static str {
        match self {
            Counter::ProviderCall => "provider_call",
            Counter::ProviderError => "provider_error",
            Counter::LlmCacheHit => "llm_cache_hit",
        }
    }
}

async fn add(pool: &PgPool, counters: &[Counter]) -> Result<()> {
    let metrics: Vec<&str> = counters.iter().map(|c| c.metric()).collect();
    sqlx::query(
        "INSERT INTO activity_counters (hour, metric, backend, count)
         SELECT date_trunc('hour', now(), 'UTC'), m, pg_backend_pid(), count(*)
         FROM unnest($1::text[]) AS m GROUP BY m
         ON CONFLICT (hour, metric, backend)
             DO UPDATE SET count = activity_counters.count + EXCLUDED.count",
    )
    .bind(&metrics)
    .execute(pool)
    .await?;
    Ok(())
}

/// Adds one to `counter` for the current hour (a failure is logged, never returned).
pub async fn bump(pool: &PgPool, counter: Counter) {
    if let Err(e) = add(pool, &[counter]).await {
        tracing::warn!(error = %e, metric = counter.metric(), "activity counter not recorded");
    }
}

/// Awaits one provider call and counts it (and its error, if it failed); returns its
/// result untouched.
pub async fn counted<T, E>(
    pool: &PgPool,
    call: impl Future<Output = Result<T, E>>,
) -> Result<T, E> {
    let out = call.await;
    let counters: &[Counter] = if out.is_ok() {
        &[Counter::ProviderCall]
    } else {
        &[Counter::ProviderCall, Counter::ProviderError]
    };
    if let Err(e) = add(pool, counters).await {
        tracing::warn!(error = %e, "provider call not counted");
    }
    out
}

/// Width of a chart bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bucket {
    /// One hour.
    Hour,
    /// One UTC day.
    Day,
}

impl Bucket {
    fn unit(self) -> &'static str {
        match self {
            Bucket::Hour => "hour",
            Bucket::Day => "day",
        }
    }
}

// Every count is over the bucket.
/// One bucket of the geocoding chart.
#[derive(Debug, Clone, PartialEq, serde::Serialize, sqlx::FromRow)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = GeocodingBucket))]
pub struct GeocodingPoint {
    /// Start of the bucket (UTC).
    pub at: DateTime<Utc>,
    /// Rows that became `done` or `country_only` (geocoder, LLM worker or an admin).
    pub geocoded: i64,
    /// Rows that became `error`.
    pub errors: i64,
    /// Rows handed to the LLM.
    pub llm_needed: i64,
    /// Rows left to an admin (`manual`).
    pub manual: i64,
    /// Calls to the external provider.
    pub provider_calls: i64,
    /// Provider calls that failed.
    pub provider_errors: i64,
}

/// The last `buckets` buckets up to and including the current one, oldest first, every
/// bucket present (zero when nothing happened).
pub async fn geocoding_series(
    db: impl PgExecutor<'_>,
    bucket: Bucket,
    buckets: i32,
) -> Result<Vec<GeocodingPoint>> {
    Ok(sqlx::query_as(
        "WITH span AS (SELECT make_interval(hours => CASE WHEN $1 = 'hour' THEN 1 ELSE 24 END) AS step),
              b AS (SELECT g AS at, g + span.step AS until
                    FROM span, generate_series(date_trunc($1, now(), 'UTC') - ($2 - 1) * span.step,
                                               date_trunc($1, now(), 'UTC'), span.step) AS g)
         SELECT b.at,
                coalesce(sum(c.count) FILTER (WHERE c.metric IN ('status:done', 'status:country_only')), 0)::int8 AS geocoded,
                coalesce(sum(c.count) FILTER (WHERE c.metric = 'status:error'), 0)::int8 AS errors,
                coalesce(sum(c.count) FILTER (WHERE c.metric = 'status:llm_needed'), 0)::int8 AS llm_needed,
                coalesce(sum(c.count) FILTER (WHERE c.metric = 'status:manual'), 0)::int8 AS manual,
                coalesce(sum(c.count) FILTER (WHERE c.metric = 'provider_call'), 0)::int8 AS provider_calls,
                coalesce(sum(c.count) FILTER (WHERE c.metric = 'provider_error'), 0)::int8 AS provider_errors
         FROM b LEFT JOIN activity_counters c ON c.hour >= b.at AND c.hour < b.until
         GROUP BY b.at ORDER BY b.at",
    )
    .bind(bucket.unit())
    .bind(buckets)
    .fetch_all(db)
    .await?)
}

// Calls are counted valid or not (every call is billed); the cost sums the finite costs.
/// LLM calls of one model on one day.
#[derive(Debug, Clone, PartialEq, serde::Serialize, sqlx::FromRow)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = LlmDayItem))]
pub struct LlmDay {
    /// The day (00:00 UTC).
    pub day: DateTime<Utc>,
    /// Model that answered.
    pub model: String,
    /// Calls.
    pub calls: i64,
    /// Cost in USD (null when no call had a known price).
    pub cost_usd: Option<f64>,
    /// Prompt tokens.
    pub prompt_tokens: i64,
    /// Completion tokens.
    pub completion_tokens: i64,
}

const FINITE_COST: &str = "CASE WHEN cost_usd IS NULL
          OR cost_usd IN ('NaN'::numeric, 'Infinity'::numeric, '-Infinity'::numeric)
          OR abs(cost_usd) > 1e15
     THEN NULL ELSE cost_usd::float8 END";

/// Calls per day and model over the last `days` UTC days (today included), oldest first.
pub async fn llm_days(db: impl PgExecutor<'_>, days: i32) -> Result<Vec<LlmDay>> {
    let sql = format!(
        "SELECT date_trunc('day', created_at, 'UTC') AS day, model, count(*)::int8 AS calls,
                sum({FINITE_COST}) AS cost_usd,
                coalesce(sum(prompt_tokens), 0)::int8 AS prompt_tokens,
                coalesce(sum(completion_tokens), 0)::int8 AS completion_tokens
         FROM llm_cache
         WHERE created_at >= date_trunc('day', now(), 'UTC') - ($1 - 1) * interval '1 day'
         GROUP BY 1, 2 ORDER BY 1, 2"
    );
    // Only constant text is formatted in (the cost expression): no input reaches the SQL.
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(days)
        .fetch_all(db)
        .await?)
}

/// LLM cache hits per UTC day over the last `days` days (days without a hit left out).
pub async fn llm_cache_hits(
    db: impl PgExecutor<'_>,
    days: i32,
) -> Result<Vec<(DateTime<Utc>, i64)>> {
    Ok(sqlx::query_as(
        "SELECT date_trunc('day', hour, 'UTC') AS day, sum(count)::int8
         FROM activity_counters
         WHERE metric = $2
           AND hour >= date_trunc('day', now(), 'UTC') - ($1 - 1) * interval '1 day'
         GROUP BY 1 ORDER BY 1",
    )
    .bind(days)
    .bind(Counter::LlmCacheHit.metric())
    .fetch_all(db)
    .await?)
}

/// The running totals of the current calendar month (UTC).
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct LlmMonth {
    /// First instant of the month.
    pub since: DateTime<Utc>,
    /// Calls.
    pub calls: i64,
    /// Sum of the finite costs.
    pub cost_usd: f64,
    /// Prompt + completion tokens.
    pub tokens: i64,
    /// Cache hits.
    pub cache_hits: i64,
}

/// Calls, cost, tokens and cache hits since the first of the month (UTC).
pub async fn llm_month(db: impl PgExecutor<'_>) -> Result<LlmMonth> {
    let sql = format!(
        "WITH m AS (SELECT date_trunc('month', now(), 'UTC') AS since)
         SELECT m.since,
                (SELECT count(*) FROM llm_cache WHERE created_at >= m.since)::int8 AS calls,
                coalesce((SELECT sum({FINITE_COST}) FROM llm_cache WHERE created_at >= m.since), 0)::float8 AS cost_usd,
                (SELECT coalesce(sum(prompt_tokens), 0) + coalesce(sum(completion_tokens), 0)
                 FROM llm_cache WHERE created_at >= m.since)::int8 AS tokens,
                coalesce((SELECT sum(count) FROM activity_counters
                          WHERE metric = $1 AND hour >= m.since), 0)::int8 AS cache_hits
         FROM m"
    );
    // Only constant text is formatted in (the cost expression).
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(Counter::LlmCacheHit.metric())
        .fetch_one(db)
        .await?)
}
