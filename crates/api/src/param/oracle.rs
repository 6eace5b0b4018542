//! The hand parsers the typed parameters replaced (issue 26), kept as the oracle of
//! [`super::equivalence`]: the typed parser must accept what these accepted, with the same
//! values, and answer the same 400 messages.
#![allow(clippy::unwrap_used)]

use crate::error::ApiError;
use crate::extract::{Page, clean_text, contains_pattern, parse_bool};
use bandmap_db::bands::admin::{BandFilter, BandSort};
use bandmap_index::map::{Bbox, ClusterQuery, Family, Filter, family};

/// The raw query: each parameter at most once.
pub type Raw<'a> = &'a [(&'a str, &'a str)];

fn get<'a>(raw: Raw<'a>, name: &str) -> Option<&'a str> {
    raw.iter().find(|(k, _)| *k == name).map(|(_, v)| *v)
}

fn present(v: Option<&str>) -> Option<&str> {
    v.map(str::trim).filter(|s| !s.is_empty())
}

pub fn bbox(raw: Option<&str>) -> Result<Bbox, ApiError> {
    let Some(raw) = present(raw) else {
        return Ok(Bbox::WORLD);
    };
    let bad = || ApiError::bad_request("bbox must be minLon,minLat,maxLon,maxLat (four numbers)");
    let parts: Vec<f64> = raw
        .split(',')
        .map(|p| p.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| bad())?;
    let [min_lon, min_lat, max_lon, max_lat] = parts[..] else {
        return Err(bad());
    };
    if parts.iter().any(|v| !v.is_finite()) {
        return Err(ApiError::bad_request("bbox values must be finite numbers"));
    }
    let lon_ok = |v: f64| (-180.0..=180.0).contains(&v);
    let lat_ok = |v: f64| (-90.0..=90.0).contains(&v);
    if !(lon_ok(min_lon) && lon_ok(max_lon) && lat_ok(min_lat) && lat_ok(max_lat)) {
        return Err(ApiError::bad_request(
            "bbox out of range: longitudes in [-180, 180], latitudes in [-90, 90]",
        ));
    }
    if min_lon > max_lon || min_lat > max_lat {
        return Err(ApiError::bad_request(
            "bbox minimum greater than maximum (minLon,minLat,maxLon,maxLat)",
        ));
    }
    Ok(Bbox {
        min_lon,
        min_lat,
        max_lon,
        max_lat,
    })
}

pub fn zoom(raw: Option<&str>) -> Result<u8, ApiError> {
    match present(raw) {
        None => Ok(3),
        Some(s) => match s.parse::<u8>() {
            Ok(z) if z <= bandmap_index::map::query::MAX_ZOOM => Ok(z),
            _ => Err(ApiError::bad_request(
                "zoom must be an integer from 0 to 20",
            )),
        },
    }
}

pub fn year(name: &str, raw: Option<&str>) -> Result<Option<i32>, ApiError> {
    present(raw)
        .map(|s| {
            s.parse::<i32>()
                .map_err(|_| ApiError::bad_request(format!("{name} must be an integer")))
        })
        .transpose()
}

pub fn families(raw: Option<&str>) -> Result<u16, ApiError> {
    let family = crate::filter_text::bounded("family", raw)?;
    family::parse_mask(family.as_deref().unwrap_or("")).map_err(|bad| {
        ApiError::bad_request(format!(
            "family: unknown genre family {bad:?} (known: {})",
            Family::ALL.map(Family::name).join(", ")
        ))
    })
}

pub fn filter(raw: Raw<'_>) -> Result<Filter, ApiError> {
    let genre = crate::filter_text::bounded("genre", get(raw, "genre"))?;
    let country = crate::filter_text::bounded("country", get(raw, "country"))?;
    let status = crate::filter_text::bounded("status", get(raw, "status"))?;
    let families = families(get(raw, "family"))?;
    Ok(Filter::new(
        genre.as_deref(),
        country.as_deref(),
        status.as_deref(),
        year("year_min", get(raw, "year_min"))?,
        year("year_max", get(raw, "year_max"))?,
    )
    .with_families(families))
}

/// `GET /api/clusters`: the query and the breakdown.
pub fn clusters(raw: Raw<'_>) -> Result<(ClusterQuery, bool), ApiError> {
    let filter = filter(raw)?;
    let breakdown = match get(raw, "breakdown").map(str::trim) {
        None | Some("") => false,
        Some("families") => true,
        Some(_) => {
            return Err(ApiError::bad_request(
                "breakdown must be `families` (or absent)",
            ));
        }
    };
    let query = ClusterQuery {
        bbox: bbox(get(raw, "bbox"))?,
        zoom: zoom(get(raw, "zoom"))?,
        filter,
    };
    Ok((query, breakdown))
}

/// `limit` of `/api/flows`.
pub fn flows_limit(raw: Option<&str>) -> Result<usize, ApiError> {
    use bandmap_index::map::flows::{DEFAULT_LIMIT, MAX_LIMIT};
    match present(raw) {
        None => Ok(DEFAULT_LIMIT),
        Some(s) => match s.parse::<usize>() {
            Ok(n) if (1..=MAX_LIMIT).contains(&n) => Ok(n),
            _ => Err(ApiError::bad_request(format!(
                "limit must be an integer from 1 to {MAX_LIMIT}"
            ))),
        },
    }
}

fn non_blank(v: Option<&str>) -> Option<&str> {
    v.filter(|s| !clean_text(s, false).trim().is_empty())
}

fn pattern(v: Option<&str>) -> Option<String> {
    non_blank(v).map(|s| contains_pattern(s, 100))
}

fn boolean(name: &str, v: Option<&str>) -> Result<Option<bool>, ApiError> {
    // The one deliberate change: a blank flag was a 400 here alone; it is now absent, as
    // every other blank parameter.
    let v = v.filter(|s| !s.trim().is_empty());
    v.map(|s| parse_bool(name, s.trim())).transpose()
}

/// `GET /admin/api/bands`.
pub fn band_list(raw: Raw<'_>) -> Result<BandFilter, ApiError> {
    let page = Page::parse(get(raw, "limit"), get(raw, "offset"))?;
    let sort = match get(raw, "sort").map(str::trim) {
        None | Some("") => BandSort::default(),
        Some(s) => BandSort::parse(s).ok_or_else(|| {
            ApiError::bad_request(
                "sort must be one of name, ma_id, country, formed_year, updated_at, optionally prefixed with -",
            )
        })?,
    };
    let genre = crate::filter_text::bounded("genre", get(raw, "genre"))?;
    let q = get(raw, "q");
    Ok(BandFilter {
        name_pattern: pattern(q),
        ma_id: non_blank(q)
            .and_then(|s| s.trim().parse::<i64>().ok())
            .filter(|id| *id > 0),
        location_pattern: pattern(get(raw, "location_q")),
        themes_pattern: pattern(get(raw, "themes_q")),
        genre_pattern: genre.map(|g| contains_pattern(&g, 100)),
        country: crate::filter_text::bounded("country", get(raw, "country"))?,
        status: crate::filter_text::bounded("status", get(raw, "status"))?,
        has_lat: boolean("has_lat", get(raw, "has_lat"))?,
        has_location: boolean("has_location", get(raw, "has_location"))?,
        has_conflict: boolean("has_conflict", get(raw, "has_conflict"))?,
        sort,
        limit: page.limit,
        offset: page.offset,
    })
}
