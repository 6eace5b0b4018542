//! `GET /admin/api/gazetteer/candidates` (issue 17): the offline gazetteer's places for a
//! location text, as suggestions when an operator places a location by hand. The text goes
//! through the location parser (so `Kolbotn, Viken` asks for `Kolbotn` in Norway's region
//! Viken) and the gazetteer lists every place of that name, the country's first, then those in the named region, most
//! populous first — it never picks one, the operator does.
//!
//! The API server loads the gazetteer file (`GAZETTEER_PATH`) on the first such request,
//! once, in a blocking task; a missing file answers `available: false` with no items.

use crate::error::{ApiError, ErrorBody};
use crate::extract::{Query, clean_text};
use crate::state::AppState;
use axum::extract::State;
use bandmap_gazetteer::{Candidate, Gazetteer};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::{router::OpenApiRouter, routes};

/// Routes of this module.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(candidates))
}

/// Most suggestions answered.
const MAX_CANDIDATES: usize = 10;
/// Longest text looked at, in characters.
const MAX_CHARS: usize = 200;

/// Query of `GET /admin/api/gazetteer/candidates`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CandidatesQuery {
    /// The location text (e.g. a row's `location_raw`); required.
    q: Option<String>,
    /// Country name or ISO code whose places come first (e.g. the row's `country`).
    country: Option<String>,
}

/// A place the text may mean.
#[derive(Debug, Serialize, ToSchema)]
pub struct CandidateItem {
    /// GeoNames id.
    pub geonameid: i64,
    /// GeoNames main name.
    pub name: String,
    /// First-level subdivision.
    pub admin1: Option<String>,
    /// ISO 3166-1 alpha-2 code.
    pub country_code: String,
    /// Latitude.
    pub lat: f64,
    /// Longitude.
    pub lon: f64,
    /// Population (0 when unknown).
    pub population: i64,
    /// In a region the text names (name or alias of one of its regions).
    pub in_region: bool,
}

/// `GET /admin/api/gazetteer/candidates`.
#[derive(Debug, Serialize, ToSchema)]
pub struct CandidatesAnswer {
    /// The place name looked up (the parser's city part of the text).
    pub name: String,
    /// The country whose places come first.
    pub country_code: Option<String>,
    /// False when the gazetteer file could not be loaded (then no items).
    pub available: bool,
    /// At most 10 places.
    pub items: Vec<CandidateItem>,
}

/// The gazetteer, loaded on first use (None: the file is missing or unreadable).
async fn gazetteer(state: &AppState) -> Option<Arc<Gazetteer>> {
    let path = state.config.geocoder.gazetteer_path.clone();
    state
        .read
        .gazetteer
        .get_or_init(|| async move {
            let shown = path.display().to_string();
            match tokio::task::spawn_blocking(move || Gazetteer::load(&path)).await {
                Ok(Ok(g)) => Some(Arc::new(g)),
                Ok(Err(e)) => {
                    tracing::warn!(path = %shown, error = %e, "gazetteer not loaded: no suggestions");
                    None
                }
                Err(e) => {
                    tracing::warn!(path = %shown, error = %e, "gazetteer loading crashed");
                    None
                }
            }
        })
        .await
        .clone()
}

/// The places of the offline gazetteer that a location text may mean, as suggestions for
/// a manual coordinate.
#[utoipa::path(get, path = "/gazetteer/candidates", tag = "admin-locations",
    params(CandidatesQuery), security(("session" = [])),
    responses(
        (status = 200, description = "the suggestions", body = CandidatesAnswer),
        (status = 400, description = "q missing or empty", body = ErrorBody),
        (status = 401, description = "no session", body = ErrorBody)))]
pub async fn candidates(
    State(state): State<AppState>,
    Query(q): Query<CandidatesQuery>,
) -> Result<axum::Json<CandidatesAnswer>, ApiError> {
    let text: String = clean_text(q.q.as_deref().unwrap_or(""), false)
        .chars()
        .take(MAX_CHARS)
        .collect();
    let text = text.trim();
    if text.is_empty() {
        return Err(ApiError::bad_request("q (the location text) is required"));
    }
    let country = q
        .country
        .as_deref()
        .map(|c| clean_text(c, false))
        .filter(|c| !c.trim().is_empty());
    let steps = bandmap_location::parse(text, country.as_deref());
    let place = steps.iter().flat_map(|s| s.places.iter()).next();
    let name = place.map_or_else(|| text.to_string(), |p| p.city.clone());
    let code = place
        .and_then(|p| p.country_code.clone())
        .or_else(|| {
            country
                .as_deref()
                .and_then(bandmap_location::countries::resolve)
                .map(|c| c.code.to_string())
        })
        .map(|c| c.to_ascii_uppercase());
    let regions: Vec<String> = place.map(|p| p.regions.clone()).unwrap_or_default();
    let Some(g) = gazetteer(&state).await else {
        return Ok(axum::Json(CandidatesAnswer {
            name,
            country_code: code,
            available: false,
            items: Vec::new(),
        }));
    };
    let items = g
        .candidates(&name, &regions, code.as_deref(), MAX_CANDIDATES)
        .into_iter()
        .map(|c: Candidate| CandidateItem {
            in_region: c.in_region,
            geonameid: c.geonameid,
            name: c.name,
            admin1: c.admin1,
            country_code: c.country_code,
            lat: c.lat,
            lon: c.lon,
            population: i64::try_from(c.population).unwrap_or(i64::MAX),
        })
        .collect();
    Ok(axum::Json(CandidatesAnswer {
        name,
        country_code: code,
        available: true,
        items,
    }))
}
