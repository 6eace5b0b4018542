//! Response shapes of the band endpoints (CONTRACT §6), built from the db rows. Every float
//! goes through [`finite`], so NaN and infinities become `null`.

use bandmap_db::bands::admin as db;
use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

/// NaN and infinities become None (CONTRACT §4).
pub fn finite(v: Option<f64>) -> Option<f64> {
    v.filter(|x| x.is_finite())
}

/// One row of `GET /admin/api/bands`.
#[derive(Debug, Serialize, ToSchema)]
pub struct BandItem {
    pub ma_id: i64,
    pub name: String,
    pub country: Option<String>,
    pub location_text: Option<String>,
    pub genre: Option<String>,
    pub themes: Option<String>,
    pub status: Option<String>,
    pub formed_year: Option<i32>,
    pub lat: Option<f64>,
    pub lon: Option<f64>,
    pub enriched: bool,
    pub enrich_pending: bool,
    pub locked_fields: Vec<String>,
    /// At least one field is locked.
    pub locked: bool,
    /// `crawler_pending` is not empty.
    pub has_conflict: bool,
    pub updated_at: DateTime<Utc>,
    pub crawled_at: Option<DateTime<Utc>>,
    /// Upstream page.
    pub url: Option<String>,
}

impl From<db::BandListItem> for BandItem {
    fn from(r: db::BandListItem) -> Self {
        BandItem {
            ma_id: r.ma_id,
            name: r.name,
            country: r.country,
            location_text: r.location_text,
            genre: r.genre,
            themes: r.themes,
            status: r.status,
            formed_year: r.formed_year,
            lat: finite(r.lat),
            lon: finite(r.lon),
            enriched: r.enriched,
            enrich_pending: r.enrich_pending,
            locked_fields: r.locked_fields,
            locked: r.locked,
            has_conflict: r.has_conflict,
            updated_at: r.updated_at,
            crawled_at: r.crawled_at,
            url: r.url,
        }
    }
}

/// A page of bands.
#[derive(Debug, Serialize, ToSchema)]
pub struct BandPage {
    pub items: Vec<BandItem>,
    /// Rows matching the filters.
    pub total: i64,
    pub limit: i64,
    pub offset: i64,
}

/// Every column of a band (except the derived `geom`), plus `url`, `locked`, `has_conflict`.
#[derive(Debug, Serialize, ToSchema)]
pub struct Band {
    pub ma_id: i64,
    pub name: String,
    pub country: Option<String>,
    pub country_code: Option<String>,
    pub location_text: Option<String>,
    pub genre: Option<String>,
    pub themes: Option<String>,
    pub status: Option<String>,
    pub formed_year: Option<i32>,
    pub label: Option<String>,
    pub years_active: Option<String>,
    pub lat: Option<f64>,
    pub lon: Option<f64>,
    pub geocode_status: Option<String>,
    pub geocode_provider: Option<String>,
    pub geocode_confidence: Option<f64>,
    pub geocode_location_id: Option<i64>,
    pub geocode_updated_at: Option<DateTime<Utc>>,
    pub enriched: bool,
    pub enrich_pending: bool,
    pub locked_fields: Vec<String>,
    /// Pending conflicts: `{field: upstream value}`.
    #[schema(value_type = Object)]
    pub crawler_pending: Value,
    #[schema(value_type = Object)]
    pub data: Value,
    #[schema(value_type = Option<Object>)]
    pub band_page: Option<Value>,
    pub updated_at: DateTime<Utc>,
    pub crawled_at: Option<DateTime<Utc>>,
    pub crawled_hash: Option<String>,
    pub ma_created_at: Option<DateTime<Utc>>,
    pub ma_modified_at: Option<DateTime<Utc>>,
    pub ma_modified_text: Option<String>,
    pub first_seen_at: DateTime<Utc>,
    /// Upstream page (`data.url`).
    pub url: Option<String>,
    pub locked: bool,
    pub has_conflict: bool,
}

impl From<db::BandDetail> for Band {
    fn from(r: db::BandDetail) -> Self {
        Band {
            ma_id: r.ma_id,
            name: r.name,
            country: r.country,
            country_code: r.country_code,
            location_text: r.location_text,
            genre: r.genre,
            themes: r.themes,
            status: r.status,
            formed_year: r.formed_year,
            label: r.label,
            years_active: r.years_active,
            lat: finite(r.lat),
            lon: finite(r.lon),
            geocode_status: r.geocode_status,
            geocode_provider: r.geocode_provider,
            geocode_confidence: finite(r.geocode_confidence),
            geocode_location_id: r.geocode_location_id,
            geocode_updated_at: r.geocode_updated_at,
            enriched: r.enriched,
            enrich_pending: r.enrich_pending,
            locked_fields: r.locked_fields,
            crawler_pending: r.crawler_pending,
            data: r.data,
            band_page: r.band_page,
            updated_at: r.updated_at,
            crawled_at: r.crawled_at,
            crawled_hash: r.crawled_hash,
            ma_created_at: r.ma_created_at,
            ma_modified_at: r.ma_modified_at,
            ma_modified_text: r.ma_modified_text,
            first_seen_at: r.first_seen_at,
            url: r.url,
            locked: r.locked,
            has_conflict: r.has_conflict,
        }
    }
}

/// One `band_locations` row.
#[derive(Debug, Serialize, ToSchema)]
pub struct BandLocationRow {
    pub id: i64,
    pub step_order: i32,
    pub step_label: Option<String>,
    pub location_raw: String,
    pub country: Option<String>,
    /// `geocode_status`.
    pub status: String,
    pub provider: Option<String>,
    pub confidence: Option<f64>,
    pub granularity: Option<String>,
    pub lat: Option<f64>,
    pub lon: Option<f64>,
    pub attempts: i32,
    pub error: Option<String>,
    pub query: Option<String>,
}

impl From<db::BandLocation> for BandLocationRow {
    fn from(r: db::BandLocation) -> Self {
        BandLocationRow {
            id: r.id,
            step_order: r.step_order,
            step_label: r.step_label,
            location_raw: r.location_raw,
            country: r.country,
            status: r.status,
            provider: r.provider,
            confidence: finite(r.confidence),
            granularity: r.granularity,
            lat: finite(r.lat),
            lon: finite(r.lon),
            attempts: r.attempts,
            error: r.error,
            query: r.query,
        }
    }
}

/// One LLM call about the band.
#[derive(Debug, Serialize, ToSchema)]
pub struct BandLlmCallRow {
    pub id: i64,
    pub created_at: DateTime<Utc>,
    pub model: String,
    /// `{"city", "region", "country", "confidence"}` as returned.
    #[schema(value_type = Option<Object>)]
    pub extraction: Option<Value>,
    pub prompt_tokens: Option<i32>,
    pub completion_tokens: Option<i32>,
    /// NaN in the database → null.
    pub cost_usd: Option<f64>,
    pub prompt: Option<String>,
    pub response: Option<String>,
}

impl From<db::BandLlmCall> for BandLlmCallRow {
    fn from(r: db::BandLlmCall) -> Self {
        BandLlmCallRow {
            id: r.id,
            created_at: r.created_at,
            model: r.model,
            extraction: r.extraction,
            prompt_tokens: r.prompt_tokens,
            completion_tokens: r.completion_tokens,
            cost_usd: finite(r.cost_usd),
            prompt: r.prompt,
            response: r.response,
        }
    }
}

/// `GET /admin/api/bands/{ma_id}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct BandDetailResponse {
    pub band: Band,
    pub locations: Vec<BandLocationRow>,
    /// Newest first, at most 200 (`llm_calls_total` says how many there are; every one is
    /// listed, paged, by `GET /admin/api/llm?ma_id=`).
    pub llm_calls: Vec<BandLlmCallRow>,
    /// The band's LLM calls in all, so the cap of `llm_calls` is never silent.
    pub llm_calls_total: i64,
}
