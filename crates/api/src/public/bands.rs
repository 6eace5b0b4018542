//! `GET /api/bands/{ma_id}`: the public card of one band with its steps in order.

use super::cache;
use crate::error::{ApiError, ErrorBody};
use crate::extract::Path;
use crate::state::AppState;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use bandmap_db::band_locations::GeocodeStatus;
use serde::Serialize;
use utoipa::ToSchema;

// Themes, label and years active: the catalogue column when set, else what the band page
// said (`band_page`, written by the enrichment; `years_active` has no other writer).
const CARD_SQL: &str = "SELECT ma_id, name, genre, country, status, formed_year, \
     COALESCE(NULLIF(themes, ''), NULLIF(band_page->>'lyrical_themes', '')) AS themes, \
     COALESCE(NULLIF(label, ''), NULLIF(band_page->>'label', '')) AS label, \
     COALESCE(NULLIF(years_active, ''), NULLIF(band_page->>'years_active', '')) AS years_active, \
     data->>'url' AS url FROM bands WHERE ma_id = $1";
// Located only when geocoded (`$2` = the located statuses: `done`, `country_only`), like
// the map. The path order is
// the parser's (`parsed_step`, which never changes): a manual override sets `step_order`
// to -1 on the row it corrects, so ordering by `step_order` would move it to the front of
// the path; by `parsed_step` it keeps the place of the step it replaced. The client draws
// the steps in this order as they come.
const STEPS_SQL: &str = "SELECT id AS location_id, step_order, step_label, location_raw, \
     CASE WHEN geocode_status = ANY($2) THEN lat END AS lat, \
     CASE WHEN geocode_status = ANY($2) THEN lon END AS lon, \
     (geocode_status <> ALL($2) AND strpos(coalesce(error, ''), $3) > 0) AS region_only \
     FROM band_locations WHERE ma_id = $1 \
     ORDER BY parsed_step, id";

/// Public card of a band.
#[derive(Debug, Serialize, ToSchema, sqlx::FromRow)]
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
    #[sqlx(skip)]
    pub steps: Vec<CardStep>,
}

/// One step of a band's path.
#[derive(Debug, Serialize, ToSchema, sqlx::FromRow)]
pub struct CardStep {
    /// `band_locations.id`.
    pub location_id: i64,
    /// Display order (-1: manual override).
    pub step_order: i32,
    /// Label of the step.
    pub step_label: Option<String>,
    /// Location text.
    pub location_raw: String,
    /// Latitude when located.
    pub lat: Option<f64>,
    /// Longitude when located.
    pub lon: Option<f64>,
    /// True when the step is not located because its text names a region alone (issue
    /// 30: the card says "région seulement"); absent otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    #[schema(default = false)]
    pub region_only: bool,
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
    let mut card: BandCard = sqlx::query_as(CARD_SQL)
        .bind(ma_id)
        .fetch_optional(&state.public_pool)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("no band {ma_id}")))?;
    if card.url.as_deref().is_none_or(str::is_empty) {
        let base = state
            .config
            .upstream
            .base_url
            .as_str()
            .trim_end_matches('/');
        card.url = Some(format!("{base}/bands/_/{ma_id}"));
    }
    card.steps = sqlx::query_as(STEPS_SQL)
        .bind(ma_id)
        .bind(&GeocodeStatus::LOCATED[..])
        .bind(bandmap_db::band_locations::REGION_ONLY_NOTE)
        .fetch_all(&state.public_pool)
        .await?;
    for s in &mut card.steps {
        s.lat = s.lat.filter(|v| v.is_finite());
        s.lon = s.lon.filter(|v| v.is_finite());
    }
    Ok(cache::json_response(&headers, &card))
}
