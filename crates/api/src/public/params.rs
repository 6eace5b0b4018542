//! Parsing of the public query parameters into valid values (CONTRACT §4, §7): every
//! malformed value is a 400 naming the parameter; an empty value means "absent".

use crate::error::ApiError;
use bandmap_index::map::{Bbox, Family, Filter, family};

fn present(v: Option<&str>) -> Option<&str> {
    v.map(str::trim).filter(|s| !s.is_empty())
}

/// `bbox=minLon,minLat,maxLon,maxLat`; absent → the whole world.
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

/// `zoom`: integer 0–20, default 3.
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

/// A year bound: an integer.
pub fn year(name: &str, raw: Option<&str>) -> Result<Option<i32>, ApiError> {
    present(raw)
        .map(|s| {
            s.parse::<i32>()
                .map_err(|_| ApiError::bad_request(format!("{name} must be an integer")))
        })
        .transpose()
}

/// `family=black,doom`: the genre families kept, as a mask of [`Family::bit`]s; absent or
/// blank → 0 (every family). Over 100 characters or an unknown name → 400. The one parser
/// of `family` (`/api/clusters`, `/api/countries`).
pub fn families(raw: Option<&str>) -> Result<u16, ApiError> {
    let family = crate::filter_text::bounded("family", raw)?;
    family::parse_mask(family.as_deref().unwrap_or("")).map_err(|bad| {
        ApiError::bad_request(format!(
            "family: unknown genre family {bad:?} (known: {})",
            Family::ALL.map(Family::name).join(", ")
        ))
    })
}

/// The map's filter parameters as sent (`genre`, `country`, `status`, `year_min`,
/// `year_max`, `family`).
#[derive(Debug, Clone, Copy, Default)]
pub struct RawFilter<'a> {
    /// `genre`.
    pub genre: Option<&'a str>,
    /// `country`.
    pub country: Option<&'a str>,
    /// `status`.
    pub status: Option<&'a str>,
    /// `year_min`.
    pub year_min: Option<&'a str>,
    /// `year_max`.
    pub year_max: Option<&'a str>,
    /// `family`.
    pub family: Option<&'a str>,
}

/// The map index's filter of `raw`: the one parser of the filters of `/api/clusters` and
/// `/api/flows` (texts bounded to 100 characters, years integers, known families).
pub fn filter(raw: RawFilter<'_>) -> Result<Filter, ApiError> {
    let genre = crate::filter_text::bounded("genre", raw.genre)?;
    let country = crate::filter_text::bounded("country", raw.country)?;
    let status = crate::filter_text::bounded("status", raw.status)?;
    let families = families(raw.family)?;
    Ok(Filter::new(
        genre.as_deref(),
        country.as_deref(),
        status.as_deref(),
        year("year_min", raw.year_min)?,
        year("year_max", raw.year_max)?,
    )
    .with_families(families))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bbox_rules() {
        assert_eq!(bbox(None).unwrap(), Bbox::WORLD);
        assert_eq!(bbox(Some(" ")).unwrap(), Bbox::WORLD);
        assert!(bbox(Some("1,2,3,4")).is_ok());
        for bad in [
            "1,2,3",
            "1,2,3,4,5",
            "a,2,3,4",
            "1,,3,4",
            "NaN,1,2,3",
            "inf,1,2,3",
            "-181,0,0,0",
            "0,-91,0,0",
            "0,0,181,0",
            "0,0,0,91",
            "5,0,4,1",
            "0,5,1,4",
        ] {
            assert!(bbox(Some(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn zoom_and_years() {
        assert_eq!(zoom(None).unwrap(), 3);
        assert_eq!(zoom(Some("20")).unwrap(), 20);
        for bad in ["21", "-1", "3.5", "x", "256"] {
            assert!(zoom(Some(bad)).is_err(), "{bad}");
        }
        assert_eq!(year("y", Some("1990")).unwrap(), Some(1990));
        assert!(year("y", Some("199x")).is_err());
    }

    #[test]
    fn family_masks() {
        assert_eq!(families(None).unwrap(), 0);
        assert_eq!(families(Some(" , ")).unwrap(), 0);
        assert_eq!(
            families(Some("Doom, black")).unwrap(),
            Family::Black.bit() | Family::Doom.bit()
        );
        assert!(families(Some("black,polka")).is_err());
        assert!(families(Some(&"black,".repeat(20))).is_err(), "over 100");
    }
}
