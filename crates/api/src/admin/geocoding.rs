//! Admin API: geocoding counters (`GET /admin/api/geocoding`), the LLM call list with
//! totals (`GET /admin/api/llm`) and the purge of the legacy provider's cache. NaN costs
//! stored in `llm_cache` never reach a response: they read as null and sums ignore them.

use crate::admin::common::audit;
use crate::admin::common::shapes::StatusCounts;
use crate::auth::AdminSession;
use crate::error::{ApiError, ErrorBody};
use crate::extract::{PageParams, Query, contains_pattern};
use crate::param::{self, FilterText, Flag, Integer, Text};
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use bandmap_db::llm_cache::{self, LlmFilter};
use bandmap_db::{geocode_cache, geocoding_stats};
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::{router::OpenApiRouter, routes};

/// A provider's rows, a model's usage, an LLM call and the totals, as `crates/db` reads them
/// (NaN costs and confidences are null on the wire: serde_json writes a non-finite float as
/// `null`).
pub use bandmap_db::geocoding_stats::ProviderCount as ProviderItem;
pub use bandmap_db::llm_cache::{
    LlmCall as LlmItem, LlmTotals as LlmTotalsItem, ModelStats as ModelItem,
};

/// Routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(overview))
        .routes(routes!(llm_calls))
        .routes(routes!(purge_legacy_provider))
}

/// Geocode cache size.
#[derive(Debug, Serialize, ToSchema)]
pub struct CacheInfo {
    /// Cached provider answers.
    pub entries: i64,
}

/// `GET /admin/api/geocoding`.
#[derive(Debug, Serialize, ToSchema)]
pub struct GeocodingOverview {
    /// Rows per status (all seven).
    pub by_status: StatusCounts,
    /// Rows per provider, most used first.
    pub providers: Vec<ProviderItem>,
    /// LLM calls per model, most used first.
    pub llm_models: Vec<ModelItem>,
    /// Geocode cache.
    pub cache: CacheInfo,
}

/// Counters of `band_locations` and `llm_cache`.
#[utoipa::path(get, path = "/geocoding", tag = "admin-geocoding", security(("session" = [])),
    responses(
        (status = 200, description = "counters", body = GeocodingOverview),
        (status = 401, description = "no session", body = ErrorBody)))]
pub async fn overview(State(state): State<AppState>) -> Result<Json<GeocodingOverview>, ApiError> {
    let pool = &state.pool;
    let by_status = geocoding_stats::status_counts(pool).await?.into();
    let providers = geocoding_stats::providers(pool).await?;
    let llm_models = llm_cache::model_stats(pool).await?;
    let entries = geocode_cache::count(pool).await?;
    Ok(Json(GeocodingOverview {
        by_status,
        providers,
        llm_models,
        cache: CacheInfo { entries },
    }))
}

/// Query of `GET /admin/api/llm`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LlmQuery {
    /// Exact model name (at most 100 characters).
    #[serde(default, deserialize_with = "param::model")]
    #[param(value_type = Option<String>, max_length = 100)]
    model: Option<FilterText>,
    /// Band id.
    #[serde(default, deserialize_with = "param::ma_id")]
    #[param(inline)]
    ma_id: Option<Integer>,
    /// true: only calls whose valid extraction has no city; false: only calls with a city.
    /// Malformed replies match neither (see `malformed`).
    #[serde(default, deserialize_with = "param::city_null")]
    #[param(inline)]
    city_null: Option<Flag>,
    /// true: only malformed replies (no valid extraction); false: only valid ones.
    #[serde(default, deserialize_with = "param::malformed")]
    #[param(inline)]
    malformed: Option<Flag>,
    /// Case-insensitive substring of the place sent (wildcards literal, truncated to 100).
    #[serde(default, deserialize_with = "param::q")]
    #[param(inline)]
    q: Option<Text>,
    /// The page.
    #[serde(flatten)]
    #[param(ignore)]
    page: PageParams,
}

/// `GET /admin/api/llm`: a list page plus totals.
#[derive(Debug, Serialize, ToSchema)]
pub struct LlmPageItem {
    /// Calls, newest first.
    pub items: Vec<LlmItem>,
    /// Calls matching the filter.
    pub total: i64,
    /// Page size used.
    pub limit: i64,
    /// Rows skipped.
    pub offset: i64,
    /// Totals over the whole filter.
    pub totals: LlmTotalsItem,
}

/// LLM calls with prompt, response and triggering band, plus totals over the filter.
#[utoipa::path(get, path = "/llm", tag = "admin-geocoding", params(LlmQuery, PageParams),
    security(("session" = [])),
    responses(
        (status = 200, description = "a page of calls", body = LlmPageItem),
        (status = 400, description = "bad parameter", body = ErrorBody),
        (status = 401, description = "no session", body = ErrorBody)))]
pub async fn llm_calls(
    State(state): State<AppState>,
    Query(q): Query<LlmQuery>,
) -> Result<Json<LlmPageItem>, ApiError> {
    let filter = LlmFilter {
        model: q.model.map(|m| m.0),
        ma_id: q.ma_id.map(|i| i.0),
        city_null: q.city_null.map(|f| f.0),
        malformed: q.malformed.map(|f| f.0),
        location_pattern: q.q.map(|t| contains_pattern(&t.0, 100)),
    };
    let page = q.page.page();
    let found = llm_cache::list(&state.pool, &filter, page.limit, page.offset).await?;
    Ok(Json(LlmPageItem {
        items: found.items,
        total: found.total,
        limit: page.limit,
        offset: page.offset,
        totals: found.totals,
    }))
}

/// Result of the purge.
#[derive(Debug, Serialize, ToSchema)]
pub struct Deleted {
    /// Cache rows deleted.
    pub deleted: u64,
}

/// Deletes the geocode cache entries of the legacy provider `nominatim` (destructive).
/// Audited.
#[utoipa::path(post, path = "/geocode-cache/purge-legacy-provider", tag = "admin-geocoding",
    security(("session" = [])),
    responses(
        (status = 200, description = "rows deleted", body = Deleted),
        (status = 401, description = "no session", body = ErrorBody)))]
pub async fn purge_legacy_provider(
    State(state): State<AppState>,
    session: AdminSession,
) -> Result<Json<Deleted>, ApiError> {
    let mut tx = state.pool.begin().await?;
    let deleted = geocoding_stats::purge_legacy_provider(&mut *tx).await?;
    audit::record(
        &mut tx,
        &session,
        "geocode_cache.purge_legacy_provider",
        "geocode_cache",
        Some(json!({"provider": geocode_cache::LEGACY_PROVIDER})),
        Some(json!({"deleted": deleted})),
    )
    .await?;
    tx.commit().await?;
    Ok(Json(Deleted { deleted }))
}
