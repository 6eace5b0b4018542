//! `GET /api/search?q=`: up to 20 bands whose name contains `q`, with their primary point.
//!
//! Cost under abuse (issue 18): the answer comes from the in-memory copy
//! (`bandmap_index::name_search`) whenever it is known fresh — no database work at all. While
//! it is not (before its first load, and from a change until its reload), the search runs
//! in SQL: the trigram index serves texts of 3 characters or more; a text of 1 or 2
//! characters (the map searches from 2) has no trigram and reads every name, so such short
//! answers are shared for a minute ([`ShortAnswers`]): one query per text per minute however
//! many clients ask. The SQL runs on the public pool (its own connection budget and
//! statement timeout); both paths are behind the per-client rate limit.

use super::cache;
use crate::error::{ApiError, ErrorBody};
use crate::extract::Query;
use crate::guards::short_answers::ShortAnswers;
use crate::param::{self, FromParam};
use crate::state::AppState;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use bandmap_db::bands::by_name;
use bandmap_index::name_search::NameTable;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use utoipa::{IntoParams, ToSchema};

/// One search result, as `crates/db` reads it (and the in-memory copy answers it).
pub use bandmap_db::bands::by_name::NameRow as SearchHit;

/// Most results.
pub const LIMIT: i64 = 20;

/// Query of `GET /api/search`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SearchParams {
    /// Part of a band name (case-insensitive; `%` and `_` literal). Required: missing or
    /// blank is a 400 (the handler checks; the schema says so for generated clients).
    #[serde(default, deserialize_with = "param::q")]
    #[param(inline, required = true)]
    q: Option<NameText>,
}

/// A searched name: cleaned of control characters, cut to 100 characters, trimmed
/// ([`crate::filter_text::search`]); blank is absent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameText(String);

impl FromParam for NameText {
    fn from_param(_name: &str, raw: &str) -> Result<Self, String> {
        Ok(NameText(
            crate::filter_text::search(Some(raw)).unwrap_or_default(),
        ))
    }

    fn is_blank(raw: &str) -> bool {
        crate::filter_text::search(Some(raw)).is_none()
    }
}

impl utoipa::PartialSchema for NameText {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        let schema = utoipa::openapi::schema::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .min_length(Some(1))
            .pattern(Some("\\S"))
            .build();
        utoipa::openapi::RefOr::T(utoipa::openapi::schema::Schema::Object(schema))
    }
}

impl utoipa::ToSchema for NameText {}

/// Texts shorter than this (in characters) are answered from [`ShortAnswers`].
pub const SHORT_CHARS: usize = 3;

pub use crate::guards::short_answers::SHORT_TTL_SECS;

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
    let NameText(q) =
        p.q.ok_or_else(|| ApiError::bad_request("q is required (part of a band name)"))?;
    if let Some(copy) = state.read.name_search.fresh() {
        let items = from_memory(&copy, &q);
        return Ok(cache::json_response(&headers, &SearchResults { items }));
    }
    let rows = if q.chars().count() < SHORT_CHARS {
        let short: &ShortAnswers = &state.guards.short_answers;
        short.get_or_fetch(&q, query(&state, &q)).await?
    } else {
        Arc::new(query(&state, &q).await?)
    };
    let items = rows.to_vec();
    Ok(cache::json_response(&headers, &SearchResults { items }))
}

/// The answer of the in-memory copy (the same rows and order as the SQL search).
fn from_memory(copy: &NameTable, q: &str) -> Vec<SearchHit> {
    copy.search(q, LIMIT as usize)
        .into_iter()
        .filter_map(|row| copy.hit(row))
        .collect()
}

async fn query(state: &AppState, q: &str) -> Result<Vec<SearchHit>, ApiError> {
    Ok(by_name::search(&state.public_pool, q, LIMIT).await?)
}
