//! `GET /api/search?q=`: up to 20 bands whose name contains `q`, with their primary point.
//!
//! Cost under abuse (issue 18): the trigram index serves texts of 3 characters or more; a
//! text of 1 or 2 characters (the map searches from 2) has no trigram and reads every
//! name. Such short answers are shared for a minute ([`ShortAnswers`]): one query per
//! text per minute however many clients ask (concurrent askers wait for the one running),
//! and there are few short texts. Every query runs on the public pool (its own connection
//! budget and statement timeout), behind the per-client rate limit.

use super::cache;
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Query, contains_pattern};
use crate::state::AppState;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
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

/// Texts shorter than this (in characters) are answered from [`ShortAnswers`].
pub const SHORT_CHARS: usize = 3;

/// How long a short text's answer is shared.
pub const SHORT_TTL_SECS: u64 = 60;

/// Shared answers of short texts, keyed by the lowercased text and the minute (an older
/// minute's entries are never read again and age out of the cache).
#[derive(Debug)]
pub struct ShortAnswers(quick_cache::sync::Cache<(String, u64), Arc<Vec<SearchHit>>>);

impl Default for ShortAnswers {
    fn default() -> Self {
        ShortAnswers(quick_cache::sync::Cache::new(4096))
    }
}

/// One search result.
#[derive(Debug, Clone, Serialize, ToSchema, sqlx::FromRow)]
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
        (status = 400, description = "missing or empty q", body = ErrorBody),
        (status = 429, description = "too many requests from this client address", body = ErrorBody)))]
pub async fn search(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(p): Query<SearchParams>,
) -> Result<Response, ApiError> {
    let q = crate::filter_text::search(p.q.as_deref())
        .ok_or_else(|| ApiError::bad_request("q is required (part of a band name)"))?;
    let items = if q.chars().count() < SHORT_CHARS {
        let minute = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() / SHORT_TTL_SECS)
            .unwrap_or(0);
        let key = (q.to_lowercase(), minute);
        match state.short_answers.0.get_value_or_guard_async(&key).await {
            Ok(hits) => hits,
            Err(guard) => {
                let hits = Arc::new(query(&state, &q).await?);
                let _ = guard.insert(hits.clone());
                hits
            }
        }
    } else {
        Arc::new(query(&state, &q).await?)
    };
    Ok(cache::json_response(
        &headers,
        &SearchResults {
            items: items.to_vec(),
        },
    ))
}

async fn query(state: &AppState, q: &str) -> Result<Vec<SearchHit>, ApiError> {
    let pattern = contains_pattern(q, crate::filter_text::MAX_FILTER_CHARS);
    let prefix = format!("{}%", crate::extract::like_escape(q));
    Ok(sqlx::query_as(SEARCH_SQL)
        .bind(&pattern)
        .bind(q)
        .bind(&prefix)
        .bind(LIMIT)
        .fetch_all(&state.public_pool)
        .await?)
}
