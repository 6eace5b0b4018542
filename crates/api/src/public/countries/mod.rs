//! `GET /api/countries`: bands per country and per 100,000 inhabitants, for the map's
//! density layer, under the filters of `/api/clusters` (docs/map.md). Counts from the
//! catalogue, populations from GeoNames ([`bandmap_index::populations`]). With `family=`, only the bands
//! whose genre's family ([`Family::of_genre`], the map index's rule) is asked count.
//!
//! The counts come from the in-memory copy loaded with the name search
//! (`bandmap_index::countries`, issue 31) while it is known fresh, else from the
//! catalogue's SQL (`bandmap_db::country_counts`), the same answer; the endpoint is under
//! the public rate limit either way.

use super::cache;
use super::params::MapFilterParams;
use crate::error::{ApiError, ErrorBody};
use crate::extract::Query;
use crate::state::AppState;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use bandmap_db::country_counts::{self, CountryCount, CountryFilter};
use bandmap_index::countries::CountryQuery;
use bandmap_index::map::Family;
use bandmap_index::populations::Populations;
use serde::Serialize;
use std::collections::HashMap;
use utoipa::ToSchema;

/// What `GET /api/countries` counts: the catalogue's filters and the families kept.
#[derive(Debug, Clone, PartialEq, Eq)]
struct CountriesRequest {
    filter: CountryFilter,
    /// Bits of [`Family::bit`]; 0 = every family.
    families: u16,
}

/// The catalogue's filters and the families kept of the map's filters.
fn request(p: &MapFilterParams) -> CountriesRequest {
    let text = |v: &Option<crate::param::FilterText>| v.as_ref().map(|t| t.0.clone());
    CountriesRequest {
        filter: CountryFilter {
            genre: text(&p.genre),
            country: text(&p.country),
            status: text(&p.status),
            year_min: p.year_min.map(|y| y.0),
            year_max: p.year_max.map(|y| y.0),
        },
        families: p.families(),
    }
}

/// Whether a band of genre text `genre` is of a family in `mask` (non-zero), through the
/// map index's rule; each distinct genre text is classified once.
fn family_keeper(mask: u16) -> impl FnMut(Option<&str>) -> bool {
    let kept = move |genre: Option<&str>| Family::of_genre(genre).bit() & mask != 0;
    let mut seen: HashMap<String, bool> = HashMap::new();
    move |genre| match genre {
        None => kept(None),
        Some(g) => match seen.get(g) {
            Some(&k) => k,
            None => {
                let k = kept(Some(g));
                seen.insert(g.to_owned(), k);
                k
            }
        },
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

fn density(c: CountryCount, pops: &Populations) -> CountryDensity {
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
#[utoipa::path(get, path = "/countries", tag = "public", params(MapFilterParams),
    responses(
        (status = 200, description = "bands per country under the map's filters, with populations and densities", body = Countries),
        (status = 304, description = "not modified (If-None-Match)"),
        (status = 400, description = "malformed parameter, unknown genre family", body = ErrorBody),
        (status = 429, description = "too many requests from this client address", body = ErrorBody)))]
pub async fn countries(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(p): Query<MapFilterParams>,
) -> Result<Response, ApiError> {
    let CountriesRequest { filter, families } = request(&p);
    let counts = match state.read.name_search.fresh_countries() {
        Some(copy) => copy.count(&CountryQuery {
            genre: filter.genre,
            country: filter.country,
            status: filter.status,
            year_min: filter.year_min,
            year_max: filter.year_max,
            families,
        }),
        None => counts_in_sql(&state, &filter, families).await?,
    };
    let pops = state
        .read
        .populations
        .for_gazetteer(&state.config.geocoder.gazetteer_path)
        .await;
    let items = counts.into_iter().map(|c| density(c, &pops)).collect();
    Ok(cache::json_response(&headers, &Countries { items }))
}

/// The counts from the catalogue's SQL (while the in-memory copy is not known fresh).
async fn counts_in_sql(
    state: &AppState,
    filter: &CountryFilter,
    families: u16,
) -> Result<Vec<CountryCount>, ApiError> {
    Ok(if families == 0 {
        country_counts::count_by_country(&state.public_pool, filter).await?
    } else {
        let rows = country_counts::count_by_country_and_genre(&state.public_pool, filter).await?;
        country_counts::fold_kept(rows, family_keeper(families))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keeper_follows_the_index_rule() {
        let mut black = family_keeper(Family::Black.bit());
        for _ in 0..2 {
            assert!(black(Some("Symphonic Black Metal")));
            assert!(black(Some("Black/Death Metal")));
            assert!(!black(Some("Blackened Death Metal")));
            assert!(!black(None));
        }
        let mut other = family_keeper(Family::Other.bit() | Family::Doom.bit());
        assert!(other(None));
        assert!(other(Some("Industrial Metal")));
        assert!(other(Some("Funeral Doom Metal")));
        assert!(!other(Some("Death Metal")));
    }
}
