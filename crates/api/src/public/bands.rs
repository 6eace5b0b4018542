//! `GET /api/bands/{ma_id}`: the public card of one band with its steps in order.

use super::cache;
use crate::error::{ApiError, ErrorBody};
use crate::extract::Path;
use crate::state::AppState;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use bandmap_db::band_card::{self, CardRow};
use serde::Serialize;
use utoipa::ToSchema;

/// One step of a band's path, as `crates/db` reads it.
pub use bandmap_db::band_card::CardStepRow as CardStep;

/// Public card of a band (the wire form of [`CardRow`] and its [`CardStepRow`]s).
#[derive(Debug, Serialize, ToSchema)]
pub struct BandCard {
    /// Upstream id.
    pub ma_id: i64,
    /// Name.
    pub name: String,
    /// Genre.
    pub genre: Option<String>,
    /// Country name.
    pub country: Option<String>,
    /// Status.
    pub status: Option<String>,
    /// Formation year.
    pub formed_year: Option<i32>,
    /// Lyrical themes (absent when unknown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub themes: Option<String>,
    /// Current label (absent when unknown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Years active as the upstream writes them, e.g. `1991-2004, 2010-present` (absent
    /// when unknown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub years_active: Option<String>,
    /// Upstream page.
    pub url: Option<String>,
    /// Location steps in path order (`parsed_step`; a manual override keeps its step's
    /// place), unlocated ones with null coordinates.
    pub steps: Vec<CardStep>,
}

impl From<CardRow> for BandCard {
    fn from(r: CardRow) -> Self {
        BandCard {
            ma_id: r.ma_id,
            name: r.name,
            genre: r.genre,
            country: r.country,
            status: r.status,
            formed_year: r.formed_year,
            themes: r.themes,
            label: r.label,
            years_active: r.years_active,
            url: r.url,
            steps: Vec::new(),
        }
    }
}

/// The public card of a band.
#[utoipa::path(get, path = "/bands/{ma_id}", tag = "public",
    params(("ma_id" = i64, Path, description = "upstream band id")),
    responses(
        (status = 200, description = "band card", body = BandCard),
        (status = 400, description = "non-numeric id", body = ErrorBody),
        (status = 404, description = "unknown band", body = ErrorBody),
        (status = 429, description = "too many requests from this client address", body = ErrorBody)))]
pub async fn band_card(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(ma_id): Path<i64>,
) -> Result<Response, ApiError> {
    let mut card: BandCard = band_card::card(&state.public_pool, ma_id)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no band {ma_id}")))?
        .into();
    if card.url.as_deref().is_none_or(str::is_empty) {
        let base = state
            .config
            .upstream
            .base_url
            .as_str()
            .trim_end_matches('/');
        card.url = Some(format!("{base}/bands/_/{ma_id}"));
    }
    card.steps = band_card::steps(&state.public_pool, ma_id).await?;
    Ok(cache::json_response(&headers, &card))
}
