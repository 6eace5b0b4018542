//! The admin console's time series (issue 17), read from `activity_counters` (migration
//! 023) and `llm_cache`: `GET /admin/api/charts/geocoding` (rows geocoded, errors and
//! provider calls per hour over 24 h or per day over 30 days, with the provider's
//! configured limit per bucket) and `GET /admin/api/charts/llm` (calls, cost and tokens
//! per day and model, cache hits, the fallback model's share, the month's running total).

use crate::error::{ApiError, ErrorBody};
use crate::extract::Query;
use crate::param::{self, Integer, OneOf, Vocabulary};
use crate::state::AppState;
use axum::extract::State;
use bandmap_config::GeocoderProvider;
use bandmap_db::activity_counters::{self as counters, Bucket};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::{router::OpenApiRouter, routes};

/// A bucket of the geocoding chart and a model's day, as `crates/db` reads them.
pub use bandmap_db::activity_counters::{GeocodingPoint as GeocodingBucket, LlmDay as LlmDayItem};

/// Routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(geocoding_chart))
        .routes(routes!(llm_chart))
}

/// Query of `GET /admin/api/charts/geocoding`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct GeocodingChartQuery {
    /// `24h` (per hour, default) or `30d` (per day), any case.
    #[serde(default, deserialize_with = "param::range")]
    #[param(inline)]
    range: Option<RangeParam>,
}

/// `ChartRange` as a parameter (an alias: utoipa reads a generic type's schema through
/// `ComposeSchema`, a plain path's through [`utoipa::PartialSchema`]).
pub type RangeParam = OneOf<ChartRange>;

/// The span of the geocoding chart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChartRange {
    /// 24 hours, per hour.
    Day,
    /// 30 days, per day.
    Month,
}

impl std::fmt::Display for ChartRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ChartRange::Day => "24h",
            ChartRange::Month => "30d",
        })
    }
}

impl Vocabulary for ChartRange {
    fn all() -> &'static [Self] {
        &[ChartRange::Day, ChartRange::Month]
    }
    fn schema() -> utoipa::openapi::Object {
        crate::admin::common::vocab::names(vec!["24h", "30d"], "A chart range.")
    }
}

/// The external provider as this server is configured.
#[derive(Debug, Serialize, ToSchema)]
pub struct ProviderLimit {
    /// `geoapify` or `none`.
    pub provider: String,
    /// A key is set and the provider is not `none`.
    pub enabled: bool,
    /// `GEOCODER_MIN_DELAY` in seconds (calls start at least this far apart).
    pub min_delay_s: f64,
    /// Most calls one bucket can hold at that spacing (null when the delay is 0).
    pub limit_per_bucket: Option<i64>,
}

/// `GET /admin/api/charts/geocoding`.
#[derive(Debug, Serialize, ToSchema)]
pub struct GeocodingChart {
    /// `24h` or `30d`.
    pub range: String,
    /// `hour` or `day`.
    pub bucket: String,
    /// Every bucket of the range, oldest first (the last one is the current, partial one).
    pub points: Vec<GeocodingBucket>,
    /// The configured provider and its limit.
    pub provider: ProviderLimit,
}

/// Rows geocoded, errors and provider calls over the last 24 hours (per hour) or 30 days
/// (per day), with the configured provider limit per bucket.
#[utoipa::path(get, path = "/charts/geocoding", tag = "admin-monitoring",
    params(GeocodingChartQuery), security(("session" = [])),
    responses(
        (status = 200, description = "the series", body = GeocodingChart),
        (status = 400, description = "bad range", body = ErrorBody),
        (status = 401, description = "no session", body = ErrorBody)))]
pub async fn geocoding_chart(
    State(state): State<AppState>,
    Query(q): Query<GeocodingChartQuery>,
) -> Result<axum::Json<GeocodingChart>, ApiError> {
    let range = q.range.map_or(ChartRange::Day, |r| r.0);
    let (bucket, count, bucket_s, name) = if range == ChartRange::Month {
        (Bucket::Day, 30, 86_400.0, "day")
    } else {
        (Bucket::Hour, 24, 3_600.0, "hour")
    };
    let points = counters::geocoding_series(&state.pool, bucket, count).await?;
    let cfg = &state.config.geocoder;
    let delay = cfg.min_delay.as_secs_f64();
    let limit = (delay > 0.0).then(|| (bucket_s / delay).floor() as i64);
    let enabled = cfg.provider == GeocoderProvider::Geoapify && cfg.api_key.is_some();
    Ok(axum::Json(GeocodingChart {
        range: range.to_string(),
        bucket: name.to_string(),
        points,
        provider: ProviderLimit {
            provider: match cfg.provider {
                GeocoderProvider::Geoapify => "geoapify".to_string(),
                GeocoderProvider::None => "none".to_string(),
            },
            enabled,
            min_delay_s: delay,
            limit_per_bucket: limit,
        },
    }))
}

/// Query of `GET /admin/api/charts/llm`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LlmChartQuery {
    /// Days, today included (1–90, default 30).
    #[serde(default, deserialize_with = "param::days")]
    #[param(value_type = Option<i64>, minimum = 1, maximum = 90)]
    days: Option<Integer>,
}

/// Cache hits of one day.
#[derive(Debug, Serialize, ToSchema)]
pub struct CacheHitDay {
    /// The day (00:00 UTC).
    pub day: DateTime<Utc>,
    /// Extractions served from `llm_cache` without a call.
    pub hits: i64,
}

/// The current calendar month (UTC).
#[derive(Debug, Serialize, ToSchema)]
pub struct LlmMonthTotal {
    /// First instant of the month.
    pub since: DateTime<Utc>,
    /// Calls.
    pub calls: i64,
    /// Cost in USD (finite costs only).
    pub cost_usd: f64,
    /// Prompt + completion tokens.
    pub tokens: i64,
    /// Cache hits.
    pub cache_hits: i64,
}

/// `GET /admin/api/charts/llm`.
#[derive(Debug, Serialize, ToSchema)]
pub struct LlmChart {
    /// Days covered, today included.
    pub days: i32,
    /// `LLM_MODEL_PRIMARY` of this server.
    pub primary_model: String,
    /// `LLM_MODEL_FALLBACK` of this server.
    pub fallback_model: String,
    /// Per day and model, oldest first (days without a call left out).
    pub items: Vec<LlmDayItem>,
    /// Cache hits per day (days without a hit left out).
    pub cache_hits: Vec<CacheHitDay>,
    /// Calls answered by the fallback model / calls of both models over the days (null
    /// when neither answered).
    pub fallback_share: Option<f64>,
    /// The month's running total.
    pub month: LlmMonthTotal,
}

/// LLM calls, cost and tokens per day and model, cache hits, the fallback share and the
/// month's running total.
#[utoipa::path(get, path = "/charts/llm", tag = "admin-monitoring",
    params(LlmChartQuery), security(("session" = [])),
    responses(
        (status = 200, description = "the series", body = LlmChart),
        (status = 400, description = "bad days", body = ErrorBody),
        (status = 401, description = "no session", body = ErrorBody)))]
pub async fn llm_chart(
    State(state): State<AppState>,
    Query(q): Query<LlmChartQuery>,
) -> Result<axum::Json<LlmChart>, ApiError> {
    let days = match q.days.map(|d| d.0) {
        None => 30,
        Some(d @ 1..=90) => i32::try_from(d).unwrap_or(30),
        Some(_) => return Err(ApiError::bad_request("days must be between 1 and 90")),
    };
    let pool = &state.pool;
    let (items, hits, month) = tokio::try_join!(
        counters::llm_days(pool, days),
        counters::llm_cache_hits(pool, days),
        counters::llm_month(pool)
    )?;
    let llm = &state.config.llm;
    let calls_of = |model: &str| -> i64 {
        items
            .iter()
            .filter(|d| d.model == model)
            .map(|d| d.calls)
            .sum()
    };
    let (primary, fallback) = (calls_of(&llm.model_primary), calls_of(&llm.model_fallback));
    let fallback_share =
        (primary + fallback > 0).then(|| fallback as f64 / (primary + fallback) as f64);
    Ok(axum::Json(LlmChart {
        days,
        primary_model: llm.model_primary.clone(),
        fallback_model: llm.model_fallback.clone(),
        items,
        cache_hits: hits
            .into_iter()
            .map(|(day, hits)| CacheHitDay { day, hits })
            .collect(),
        fallback_share,
        month: LlmMonthTotal {
            since: month.since,
            calls: month.calls,
            cost_usd: if month.cost_usd.is_finite() {
                month.cost_usd
            } else {
                0.0
            },
            tokens: month.tokens,
            cache_hits: month.cache_hits,
        },
    }))
}
