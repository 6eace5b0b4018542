//! `GET /api/countries`: bands per country and per 100,000 inhabitants, for the map's
//! density layer, under the filters of `/api/clusters` (docs/map.md). Counts from the
//! catalogue (`bandmap_db::country_counts`), populations from GeoNames ([`populations`]).

pub mod populations;

use super::{cache, params};
use crate::error::{ApiError, ErrorBody};
use crate::extract::Query;
use crate::state::AppState;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use bandmap_db::country_counts::{self, CountryCount, CountryFilter};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// Query of `GET /api/countries`: the filters of `/api/clusters`.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CountriesParams {
    /// Country name or ISO2 code (case-insensitive equality); over 100 characters → 400.
    country: Option<String>,
    /// Band status (case-insensitive equality); over 100 characters → 400.
    status: Option<String>,
    /// Genre (case-insensitive substring); over 100 characters → 400.
    genre: Option<String>,
    /// Lowest formation year.
    #[param(value_type = Option<i32>)]
    year_min: Option<String>,
    /// Highest formation year.
    #[param(value_type = Option<i32>)]
    year_max: Option<String>,
}

impl CountriesParams {
    fn parse(&self) -> Result<CountryFilter, ApiError> {
        Ok(CountryFilter {
            genre: crate::filter_text::bounded("genre", self.genre.as_deref())?,
            country: crate::filter_text::bounded("country", self.country.as_deref())?,
            status: crate::filter_text::bounded("status", self.status.as_deref())?,
            year_min: params::year("year_min", self.year_min.as_deref())?,
            year_max: params::year("year_max", self.year_max.as_deref())?,
        })
    }
}

/// Bands of one country and their density.
#[derive(Debug, Serialize, ToSchema)]
pub struct CountryDensity {
    /// ISO 3166-1 alpha-2 code.
    pub country_code: String,
    /// Country name (the catalogue's, else GeoNames').
    pub country: Option<String>,
    /// ISO 3166-1 numeric code (the ids of the map's Natural Earth outlines); null when
    /// unknown (Kosovo has none).
    pub iso_numeric: Option<u16>,
    /// Bands matching the filters.
    pub bands: i64,
    /// Inhabitants (GeoNames countryInfo); null when unknown.
    pub population: Option<u64>,
    /// Bands per 100,000 inhabitants, 4 decimals; null without a population.
    pub per_100k: Option<f64>,
}

/// Answer of `GET /api/countries`.
#[derive(Debug, Serialize, ToSchema)]
pub struct Countries {
    /// Countries with at least one matching band, by code.
    pub items: Vec<CountryDensity>,
}

fn density(c: CountryCount, pops: &populations::Populations) -> CountryDensity {
    let known = pops.get(&c.country_code);
    let population = known.map(|k| k.population).filter(|p| *p > 0);
    #[allow(clippy::cast_precision_loss)] // counts and populations are far below 2^52
    let per_100k =
        population.map(|p| (c.bands as f64 * 100_000.0 / p as f64 * 10_000.0).round() / 10_000.0);
    CountryDensity {
        country: c.country.or_else(|| known.map(|k| k.name.clone())),
        iso_numeric: known.and_then(|k| k.iso_numeric),
        bands: c.bands,
        population,
        per_100k,
        country_code: c.country_code,
    }
}

/// Bands per country and per 100,000 inhabitants.
#[utoipa::path(get, path = "/countries", tag = "public", params(CountriesParams),
    responses(
        (status = 200, description = "bands per country under the map's filters, with populations and densities", body = Countries),
        (status = 304, description = "not modified (If-None-Match)"),
        (status = 400, description = "malformed parameter", body = ErrorBody)))]
pub async fn countries(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(p): Query<CountriesParams>,
) -> Result<Response, ApiError> {
    let filter = p.parse()?;
    let counts = country_counts::count_by_country(&state.public_pool, &filter).await?;
    let pops = populations::for_gazetteer(&state.config.geocoder.gazetteer_path).await;
    let items = counts.into_iter().map(|c| density(c, &pops)).collect();
    Ok(cache::json_response(&headers, &Countries { items }))
}
