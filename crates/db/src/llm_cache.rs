//! `llm_cache`: one row per LLM call, keyed by the sha256 of the canonical request (rule 21).
//! `cost_usd` is a NUMERIC that may hold `NaN` (or ±Infinity): every reader here converts a
//! non-finite cost to `None` in SQL and again in Rust, and every total ignores such rows, so
//! nothing downstream ever sees a NaN (CONTRACT §4).
//!
//! Signatures used by the admin API (`/admin/api/llm`, `/admin/api/geocoding`,
//! `/admin/api/bands/:ma_id`):
//!
//! ```ignore
//! // GET /admin/api/llm — items newest first, `total` and `totals` over the filter.
//! pub async fn list(db: impl Acquire<'_, Database = Postgres>, filter: &LlmFilter, limit: i64, offset: i64) -> Result<LlmPage>;
//! //   LlmFilter { model: Option<String>, ma_id: Option<i64>, city_null: Option<bool>, malformed: Option<bool>,
//! //               location_pattern: Option<String> /* ILIKE pattern, `\` escape: use api::extract::contains_pattern */ }
//! //   LlmPage { items: Vec<LlmCall>, total: i64, totals: LlmTotals { calls: i64, cost_usd: f64 } }
//! //   LlmCall { id, created_at, ma_id, band_name, location_raw, country, model, extraction,
//! //             prompt_tokens, completion_tokens, cost_usd: Option<f64>, prompt, response }
//! // GET /admin/api/geocoding — "llm_models".
//! pub async fn model_stats(db: impl PgExecutor<'_>) -> Result<Vec<ModelStats>>;
//! //   ModelStats { model, calls, city_null, malformed, cost_usd: f64, prompt_tokens: i64, completion_tokens: i64 }
//! // GET /admin/api/bands/:ma_id — "llm_calls", newest first.
//! pub async fn for_band(db: impl PgExecutor<'_>, ma_id: i64) -> Result<Vec<LlmCall>>;
//! pub async fn count(db: impl PgExecutor<'_>) -> Result<i64>;
//! ```
//!
//! The LLM worker writes with [`insert`] (one row per call, `key` not unique: a malformed
//! reply and the later valid answer of the same request are two rows) and reads its cache
//! with [`find_answer`] (valid extractions only).

use crate::Result;
use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use sqlx::{Acquire, PgExecutor, Postgres};

/// The finite cost of a row as float8, or NULL (NaN, ±Infinity, absurdly large, NULL).
/// Costs beyond float8's range (e.g. `1e400`) would make the cast fail: they are NULL too.
const COST_SQL: &str = "CASE WHEN c.cost_usd IS NULL
          OR c.cost_usd IN ('NaN'::numeric, 'Infinity'::numeric, '-Infinity'::numeric)
          OR abs(c.cost_usd) > 1e15
     THEN NULL ELSE c.cost_usd::float8 END";

// As the admin API shows it; a NaN or infinite cost is read as None.
/// One LLM call.
#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = LlmItem))]
pub struct LlmCall {
    /// Row id.
    pub id: i64,
    /// When.
    pub created_at: DateTime<Utc>,
    /// Band that triggered it.
    pub ma_id: Option<i64>,
    /// Its name (null when the band is gone).
    pub band_name: Option<String>,
    /// Place sent.
    pub location_raw: Option<String>,
    /// Country sent.
    pub country: Option<String>,
    /// Model that answered.
    pub model: String,
    /// `{"city","region","country","confidence"}`; null when the reply was malformed.
    pub extraction: Option<Value>,
    /// Prompt tokens.
    pub prompt_tokens: Option<i32>,
    /// Completion tokens.
    pub completion_tokens: Option<i32>,
    /// Cost in USD (null when unknown or NaN).
    pub cost_usd: Option<f64>,
    /// Prompt text.
    pub prompt: Option<String>,
    /// Raw reply.
    pub response: Option<String>,
}

/// Filters of `/admin/api/llm`; `None` means "any".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LlmFilter {
    /// Exact model id.
    pub model: Option<String>,
    /// Exact band id.
    pub ma_id: Option<i64>,
    /// Only calls whose extraction has (true) / has not (false) a null city. Only valid
    /// extractions are compared: a malformed reply (no extraction) is an error, never
    /// "city null" (issue 19 point 9); it matches neither value.
    pub city_null: Option<bool>,
    /// Only malformed replies (true: no valid extraction) / only valid ones (false).
    pub malformed: Option<bool>,
    /// ILIKE pattern (with `\` as escape) on `location_raw`, e.g. from
    /// `bandmap_api::extract::contains_pattern`.
    pub location_pattern: Option<String>,
}

// `cost_usd` sums the finite costs, so it is always finite (the API's schema has always
// said number or null).
/// Totals over the filter.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = LlmTotalsItem))]
pub struct LlmTotals {
    /// Calls.
    pub calls: i64,
    /// Cost in USD (NaN rows ignored).
    #[cfg_attr(feature = "openapi", schema(value_type = Option<f64>))]
    pub cost_usd: f64,
}

/// A page of calls plus the totals of the whole filter.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LlmPage {
    /// The calls of the page, newest first.
    pub items: Vec<LlmCall>,
    /// Number of calls matching the filter.
    pub total: i64,
    /// Totals over the filter.
    pub totals: LlmTotals,
}

// One item of `llm_models` (`/admin/api/geocoding`). Malformed replies are billed;
// `cost_usd` sums the finite costs, so it is always finite (the API's schema has always said
// number or null).
/// LLM usage of one model.
#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = ModelItem))]
pub struct ModelStats {
    /// Model.
    pub model: String,
    /// Calls.
    pub calls: i64,
    /// Calls whose valid extraction gave no city (malformed replies excluded).
    pub city_null: i64,
    /// Malformed replies (no valid extraction): errors, counted apart from `city_null`.
    pub malformed: i64,
    /// Total cost in USD (NaN rows ignored).
    #[cfg_attr(feature = "openapi", schema(value_type = Option<f64>))]
    pub cost_usd: f64,
    /// Prompt tokens.
    pub prompt_tokens: i64,
    /// Completion tokens.
    pub completion_tokens: i64,
}

/// A call to record.
#[derive(Debug, Clone, PartialEq)]
pub struct NewLlmCall {
    /// sha256 (hex) of the canonical request (not unique: one row per call).
    pub key: String,
    /// Triggering band.
    pub ma_id: Option<i64>,
    /// Triggering `band_locations` row.
    pub location_id: Option<i64>,
    /// Place text.
    pub location_raw: Option<String>,
    /// Country of the row.
    pub country: Option<String>,
    /// Model that answered.
    pub model: String,
    /// Validated extraction; `None` when the reply was malformed.
    pub extraction: Option<Value>,
    /// Prompt tokens.
    pub prompt_tokens: Option<i32>,
    /// Completion tokens.
    pub completion_tokens: Option<i32>,
    /// Cost; a non-finite value is stored as NULL.
    pub cost_usd: Option<f64>,
    /// Messages sent, as text.
    pub prompt: String,
    /// Raw reply body.
    pub response: String,
}

/// A cached answer.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct CachedAnswer {
    /// Row id.
    pub id: i64,
    /// Model that answered.
    pub model: String,
    /// The validated extraction.
    pub extraction: Value,
}

/// Records one call as its own row (SPEC rule 21: one row per call), valid or not: a
/// malformed reply was billed too, so overwriting it with the later valid answer of the
/// same request would lose its tokens and cost from every total. Returns the row id.
pub async fn insert(db: impl PgExecutor<'_>, call: &NewLlmCall) -> Result<i64> {
    let cost = call.cost_usd.filter(|c| c.is_finite());
    let id = sqlx::query_scalar(
        "INSERT INTO llm_cache (key, ma_id, location_id, location_raw, country, model,
             extraction, prompt_tokens, completion_tokens, cost_usd, prompt, response)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::float8::numeric, $11, $12)
         RETURNING id",
    )
    .bind(&call.key)
    .bind(call.ma_id)
    .bind(call.location_id)
    .bind(&call.location_raw)
    .bind(&call.country)
    .bind(&call.model)
    .bind(&call.extraction)
    .bind(call.prompt_tokens)
    .bind(call.completion_tokens)
    .bind(cost)
    .bind(&call.prompt)
    .bind(&call.response)
    .fetch_one(db)
    .await?;
    Ok(id)
}

/// The cached answer of a request key: the newest row with a validated extraction. Rows
/// without one (malformed replies) are never hits; they only count in the totals.
pub async fn find_answer(db: impl PgExecutor<'_>, key: &str) -> Result<Option<CachedAnswer>> {
    Ok(sqlx::query_as(
        "SELECT id, model, extraction FROM llm_cache
         WHERE key = $1 AND extraction IS NOT NULL
         ORDER BY id DESC LIMIT 1",
    )
    .bind(key)
    .fetch_optional(db)
    .await?)
}

fn select_calls() -> String {
    format!(
        "SELECT c.id, c.created_at, c.ma_id, b.name AS band_name, c.location_raw, c.country,
                c.model, c.extraction, c.prompt_tokens, c.completion_tokens,
                {COST_SQL} AS cost_usd, c.prompt, c.response
         FROM llm_cache c LEFT JOIN bands b ON b.ma_id = c.ma_id"
    )
}

const FILTER_SQL: &str = "($1::text IS NULL OR c.model = $1)
       AND ($2::bigint IS NULL OR c.ma_id = $2)
       AND ($3::boolean IS NULL
            OR (c.extraction IS NOT NULL
                AND $3 = (jsonb_typeof(c.extraction -> 'city') IS DISTINCT FROM 'string')))
       AND ($4::text IS NULL OR c.location_raw ILIKE $4 ESCAPE '\\')
       AND ($5::boolean IS NULL OR $5 = (c.extraction IS NULL))";

/// One page of calls (newest first), the number of matches and their totals.
pub async fn list(
    db: impl Acquire<'_, Database = Postgres>,
    filter: &LlmFilter,
    limit: i64,
    offset: i64,
) -> Result<LlmPage> {
    let mut conn = db.acquire().await?;
    let items_sql = format!(
        "{} WHERE {FILTER_SQL} ORDER BY c.created_at DESC, c.id DESC LIMIT $6 OFFSET $7",
        select_calls()
    );
    let items: Vec<LlmCall> = sqlx::query_as(sqlx::AssertSqlSafe(items_sql))
        .bind(&filter.model)
        .bind(filter.ma_id)
        .bind(filter.city_null)
        .bind(&filter.location_pattern)
        .bind(filter.malformed)
        .bind(limit.max(0))
        .bind(offset.max(0))
        .fetch_all(&mut *conn)
        .await?;
    let totals_sql = format!(
        "SELECT count(*), COALESCE(sum(cost) FILTER (WHERE cost IS NOT NULL), 0)::float8
         FROM (SELECT {COST_SQL} AS cost FROM llm_cache c WHERE {FILTER_SQL}) t"
    );
    let (calls, cost): (i64, f64) = sqlx::query_as(sqlx::AssertSqlSafe(totals_sql))
        .bind(&filter.model)
        .bind(filter.ma_id)
        .bind(filter.city_null)
        .bind(&filter.location_pattern)
        .bind(filter.malformed)
        .fetch_one(&mut *conn)
        .await?;
    Ok(LlmPage {
        items: items.into_iter().map(finite_call).collect(),
        total: calls,
        totals: LlmTotals {
            calls,
            cost_usd: finite_or_zero(cost),
        },
    })
}

/// Every call triggered by one band, newest first.
pub async fn for_band(db: impl PgExecutor<'_>, ma_id: i64) -> Result<Vec<LlmCall>> {
    let sql = format!(
        "{} WHERE c.ma_id = $1 ORDER BY c.created_at DESC, c.id DESC",
        select_calls()
    );
    let rows: Vec<LlmCall> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(ma_id)
        .fetch_all(db)
        .await?;
    Ok(rows.into_iter().map(finite_call).collect())
}

/// Aggregates per model, by number of calls descending.
pub async fn model_stats(db: impl PgExecutor<'_>) -> Result<Vec<ModelStats>> {
    let sql = format!(
        "SELECT model, count(*) AS calls,
                count(*) FILTER (WHERE extraction IS NOT NULL
                    AND jsonb_typeof(extraction -> 'city') IS DISTINCT FROM 'string') AS city_null,
                count(*) FILTER (WHERE extraction IS NULL) AS malformed,
                COALESCE(sum(cost) FILTER (WHERE cost IS NOT NULL), 0)::float8 AS cost_usd,
                COALESCE(sum(prompt_tokens), 0)::bigint AS prompt_tokens,
                COALESCE(sum(completion_tokens), 0)::bigint AS completion_tokens
         FROM (SELECT c.*, {COST_SQL} AS cost FROM llm_cache c) t
         GROUP BY model ORDER BY calls DESC, model"
    );
    let rows: Vec<ModelStats> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .fetch_all(db)
        .await?;
    Ok(rows
        .into_iter()
        .map(|mut m| {
            m.cost_usd = finite_or_zero(m.cost_usd);
            m
        })
        .collect())
}

/// Number of rows (`cache.entries`-style counters).
pub async fn count(db: impl PgExecutor<'_>) -> Result<i64> {
    Ok(sqlx::query_scalar("SELECT count(*) FROM llm_cache")
        .fetch_one(db)
        .await?)
}

/// When the last call was recorded (the LLM worker's progress check).
pub async fn last_call_at(db: impl PgExecutor<'_>) -> Result<Option<DateTime<Utc>>> {
    Ok(sqlx::query_scalar("SELECT max(created_at) FROM llm_cache")
        .fetch_one(db)
        .await?)
}

/// Whether a call was recorded within the last `hours` (the LLM worker's heartbeat).
pub async fn called_within(db: impl PgExecutor<'_>, hours: i32) -> Result<bool> {
    Ok(sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM llm_cache
                        WHERE created_at > now() - make_interval(hours => $1::int))",
    )
    .bind(hours)
    .fetch_one(db)
    .await?)
}

fn finite_call(mut c: LlmCall) -> LlmCall {
    c.cost_usd = c.cost_usd.filter(|v| v.is_finite());
    c
}

fn finite_or_zero(v: f64) -> f64 {
    if v.is_finite() { v } else { 0.0 }
}
