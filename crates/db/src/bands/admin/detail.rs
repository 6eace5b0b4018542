//! One band for the admin detail view: every column (except the derived `geom`), its
//! `band_locations` rows and its LLM calls. Each row is the API's wire type (`Band`,
//! `BandLocationRow`, `BandLlmCallRow`, CONTRACT §6): floats are read as they are and a
//! non-finite one is written `null` by serde_json.

use crate::Result;
use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::PgExecutor;

/// Every column of a band (except the derived `geom`), plus `url`, `locked`, `has_conflict`.
#[derive(Debug, Clone, serde::Serialize, sqlx::FromRow)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = Band))]
pub struct BandDetail {
    /// Upstream id.
    pub ma_id: i64,
    /// Name.
    pub name: String,
    /// Country name.
    pub country: Option<String>,
    /// ISO 3166-1 alpha-2 code.
    pub country_code: Option<String>,
    /// Free-text location.
    pub location_text: Option<String>,
    /// Genre.
    pub genre: Option<String>,
    /// Lyrical themes.
    pub themes: Option<String>,
    /// Status.
    pub status: Option<String>,
    /// Year of formation.
    pub formed_year: Option<i32>,
    /// Label.
    pub label: Option<String>,
    /// Years active (upstream text).
    pub years_active: Option<String>,
    /// Primary point latitude.
    pub lat: Option<f64>,
    /// Primary point longitude.
    pub lon: Option<f64>,
    /// Status of the location row giving the primary point.
    pub geocode_status: Option<String>,
    /// Provider of the primary point.
    pub geocode_provider: Option<String>,
    /// Confidence of the primary point.
    pub geocode_confidence: Option<f64>,
    /// Location row giving the primary point.
    pub geocode_location_id: Option<i64>,
    /// When the primary point last changed.
    pub geocode_updated_at: Option<DateTime<Utc>>,
    /// Enriched from the band page.
    pub enriched: bool,
    /// Enrichment requested.
    pub enrich_pending: bool,
    /// Fields edited by an admin.
    pub locked_fields: Vec<String>,
    /// Pending conflicts: `{field: upstream value}`.
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub crawler_pending: Value,
    /// Upstream extras (holds `url`).
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub data: Value,
    /// Structured band page.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub band_page: Option<Value>,
    /// Last catalogue change.
    pub updated_at: DateTime<Utc>,
    /// Last crawl.
    pub crawled_at: Option<DateTime<Utc>>,
    /// Hash of the last crawled listing row.
    pub crawled_hash: Option<String>,
    /// Upstream creation time.
    pub ma_created_at: Option<DateTime<Utc>>,
    /// Upstream modification time.
    pub ma_modified_at: Option<DateTime<Utc>>,
    /// Upstream modification text.
    pub ma_modified_text: Option<String>,
    /// First time the crawler saw the band.
    pub first_seen_at: DateTime<Utc>,
    /// Upstream page (`data.url`).
    pub url: Option<String>,
    /// At least one field is locked.
    pub locked: bool,
    /// `crawler_pending` is not empty.
    pub has_conflict: bool,
}

const SELECT_BAND: &str = "SELECT ma_id, name, country, country_code, location_text, genre,
        themes, status, formed_year, label, years_active, lat, lon, geocode_status,
        geocode_provider, geocode_confidence, geocode_location_id, geocode_updated_at,
        enriched, enrich_pending, locked_fields, crawler_pending, data, band_page,
        updated_at, crawled_at, crawled_hash, ma_created_at, ma_modified_at,
        ma_modified_text, first_seen_at, data->>'url' AS url,
        cardinality(locked_fields) > 0 AS locked,
        crawler_pending <> '{}'::jsonb AS has_conflict
    FROM bands WHERE ma_id = $1";

/// One `band_locations` row.
#[derive(Debug, Clone, serde::Serialize, sqlx::FromRow)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = BandLocationRow))]
pub struct BandLocation {
    /// `band_locations` row id.
    pub id: i64,
    /// Order of the step (-1: manual override).
    pub step_order: i32,
    /// Step label.
    pub step_label: Option<String>,
    /// Raw place.
    pub location_raw: String,
    /// Country name.
    pub country: Option<String>,
    /// `geocode_status`.
    pub status: String,
    /// Provider used.
    pub provider: Option<String>,
    /// Confidence of the provider's answer.
    pub confidence: Option<f64>,
    /// `geocode_granularity`.
    pub granularity: Option<String>,
    /// Latitude.
    pub lat: Option<f64>,
    /// Longitude.
    pub lon: Option<f64>,
    /// Attempts so far.
    pub attempts: i32,
    /// Last real error.
    pub error: Option<String>,
    /// Query sent.
    pub query: Option<String>,
}

/// One LLM call about the band.
#[derive(Debug, Clone, serde::Serialize, sqlx::FromRow)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = BandLlmCallRow))]
pub struct BandLlmCall {
    /// `llm_cache` row id.
    pub id: i64,
    /// When the call was made.
    pub created_at: DateTime<Utc>,
    /// Model called.
    pub model: String,
    /// `{"city", "region", "country", "confidence"}` as returned.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub extraction: Option<Value>,
    /// Prompt tokens.
    pub prompt_tokens: Option<i32>,
    /// Completion tokens.
    pub completion_tokens: Option<i32>,
    // Cost in USD: the query reads NaN, infinities and out-of-range amounts as NULL.
    /// NaN in the database → null.
    pub cost_usd: Option<f64>,
    /// Prompt sent.
    pub prompt: Option<String>,
    /// Raw response.
    pub response: Option<String>,
}

/// Most LLM calls listed per band (newest first).
pub const LLM_CALLS_LIMIT: i64 = 200;

/// One band, or None.
pub async fn band_detail(db: impl PgExecutor<'_>, ma_id: i64) -> Result<Option<BandDetail>> {
    Ok(sqlx::query_as::<_, BandDetail>(SELECT_BAND)
        .bind(ma_id)
        .fetch_optional(db)
        .await?)
}

/// The band's location rows, in path order: the parser's step (a manual override,
/// `step_order` -1, keeps its step's place), as the public card lists them — so the
/// console numbers the steps as the card does (issue 29).
pub async fn locations(db: impl PgExecutor<'_>, ma_id: i64) -> Result<Vec<BandLocation>> {
    Ok(sqlx::query_as::<_, BandLocation>(
        "SELECT id, step_order, step_label, location_raw, country, geocode_status AS status,
                provider, confidence, geocode_granularity AS granularity, lat, lon, attempts,
                error, query
         FROM band_locations WHERE ma_id = $1 ORDER BY parsed_step, id",
    )
    .bind(ma_id)
    .fetch_all(db)
    .await?)
}

/// How many LLM calls the band has in all (the detail lists [`LLM_CALLS_LIMIT`] at most;
/// `/admin/api/llm?ma_id=` pages through every one).
pub async fn llm_calls_total(db: impl PgExecutor<'_>, ma_id: i64) -> Result<i64> {
    Ok(
        sqlx::query_scalar("SELECT count(*) FROM llm_cache WHERE ma_id = $1")
            .bind(ma_id)
            .fetch_one(db)
            .await?,
    )
}

/// The band's LLM calls, newest first (at most [`LLM_CALLS_LIMIT`]).
pub async fn llm_calls(db: impl PgExecutor<'_>, ma_id: i64) -> Result<Vec<BandLlmCall>> {
    Ok(sqlx::query_as::<_, BandLlmCall>(
        "SELECT id, created_at, model, extraction, prompt_tokens, completion_tokens,
                CASE WHEN cost_usd IS NULL
                       OR cost_usd IN ('NaN'::numeric, 'Infinity'::numeric, '-Infinity'::numeric)
                       OR abs(cost_usd) > 1e15
                     THEN NULL ELSE cost_usd::float8 END AS cost_usd,
                prompt, response
         FROM llm_cache WHERE ma_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2",
    )
    .bind(ma_id)
    .bind(LLM_CALLS_LIMIT)
    .fetch_all(db)
    .await?)
}
