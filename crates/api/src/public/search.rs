//! `GET /api/search?q=`: up to 20 bands whose name contains `q`, with their primary point.

use super::cache;
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Query, contains_pattern};
use crate::state::AppState;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// Most results.
pub const LIMIT: i64 = 20;

// Exact names first, then names starting with q, then shorter names (the trigram index
// `bands_name_trgm` serves the ILIKE).
const SEARCH_SQL: &str = "SELECT ma_id, name, country, genre, lat, lon FROM bands \
     WHERE name ILIKE $1 ESCAPE '\\' \
     ORDER BY lower(name) = lower($2) DESC, name ILIKE $3 ESCAPE '\\' DESC, \
              length(name), name, ma_id \
     LIMIT $4";

/// Query of `GET /api/search`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SearchParams {
    /// Part of a band name (case-insensitive; `%` and `_` literal). Required: missing or
    /// blank is a 400 (the handler checks; the schema says so for generated clients).
    #[param(required = true, min_length = 1, pattern = "\\S")]
    q: Option<String>,
}

/// One search result.
#[derive(Debug, Serialize, ToSchema, sqlx::FromRow)]
pub struct SearchHit {
    /// Upstream id.
    pub ma_id: i64,
    /// Name.
    pub name: String,
    /// Country name.
    pub country: Option<String>,
    /// Genre.
    pub genre: Option<String>,
    /// Primary point latitude (null when not located).
    pub lat: Option<f64>,
    /// Primary point longitude.
    pub lon: Option<f64>,
}

/// Search results.
#[derive(Debug, Serialize, ToSchema)]
pub struct SearchResults {
    /// Up to 20 bands.
    pub items: Vec<SearchHit>,
}

/// Bands by name.
#[utoipa::path(get, path = "/search", tag = "public", params(SearchParams),
    responses(
        (status = 200, description = "up to 20 bands", body = SearchResults),
        (status = 400, description = "missing or empty q", body = ErrorBody)))]
pub async fn search(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(p): Query<SearchParams>,
) -> Result<Response, ApiError> {
    let q = crate::filter_text::search(p.q.as_deref())
        .ok_or_else(|| ApiError::bad_request("q is required (part of a band name)"))?;
    let pattern = contains_pattern(&q, crate::filter_text::MAX_FILTER_CHARS);
    let prefix = format!("{}%", crate::extract::like_escape(&q));
    let items: Vec<SearchHit> = sqlx::query_as(SEARCH_SQL)
        .bind(&pattern)
        .bind(&q)
        .bind(&prefix)
        .bind(LIMIT)
        .fetch_all(&state.pool)
        .await?;
    Ok(cache::json_response(&headers, &SearchResults { items }))
}
