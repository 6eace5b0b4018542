//! [`LocationKind`]: what a row is, derived from the columns the enqueue wrote and the
//! admin's override — never stored, so no transition (requeue included) can lose it.

use bandmap_location::{Country, countries};

/// `step_order` of a row an admin placed by hand (`PATCH /admin/api/locations/:id`).
pub const MANUAL_STEP: i32 = -1;

/// What a `band_locations` row stands for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LocationKind {
    /// A place to geocode.
    Place,
    /// The row names no place, only its country: it is located at the country's centroid.
    CountryOnly(&'static Country),
    /// An admin's override (`step_order` = [`MANUAL_STEP`]): no worker writes it.
    Manual,
}

/// The columns [`LocationKind::of`] reads.
#[derive(Debug, Clone, Copy)]
pub struct KindColumns<'a> {
    /// `step_order`.
    pub step_order: i32,
    /// `location_raw`.
    pub location_raw: &'a str,
    /// `city`.
    pub city: Option<&'a str>,
    /// `regions`.
    pub regions: &'a [String],
    /// `country_code`.
    pub country_code: Option<&'a str>,
}

impl LocationKind {
    /// The kind of a row: [`Self::Manual`] for an override, [`Self::CountryOnly`] for a row
    /// that names only its country (see [`country_only`]), otherwise [`Self::Place`].
    #[must_use]
    pub fn of(c: KindColumns<'_>) -> LocationKind {
        if c.step_order == MANUAL_STEP {
            return LocationKind::Manual;
        }
        match country_only(c.location_raw, c.city, c.regions, c.country_code) {
            Some(country) => LocationKind::CountryOnly(country),
            None => LocationKind::Place,
        }
    }
}

/// The country of a row that names no place, if this row is one.
///
/// The enqueue daemon creates such rows (`country_only`) for a location text with no place
/// (`N/A`, a country alone): `city` NULL, no regions, `location_raw` = the country's name,
/// `country_code` its code. An admin requeue puts them back to `pending`; without this
/// check the country name would be looked up as a city, the provider's country answer
/// rejected as coarse (rule 15) and the row sent to the LLM after spending credits.
/// Rows with a city, or whose raw text is not the name of their own country, are places.
#[must_use]
pub fn country_only(
    location_raw: &str,
    city: Option<&str>,
    regions: &[String],
    country_code: Option<&str>,
) -> Option<&'static Country> {
    if city.is_some_and(|c| !c.trim().is_empty()) || regions.iter().any(|r| !r.trim().is_empty()) {
        return None;
    }
    let named = countries::by_name(location_raw)?;
    let code = country_code.map(str::trim).filter(|c| !c.is_empty());
    let country = match code {
        Some(code) => countries::by_code(code).filter(|c| c.code == named.code)?,
        None => named,
    };
    (!country.is_pseudo()).then_some(country)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cols<'a>(step_order: i32, raw: &'a str, code: Option<&'a str>) -> KindColumns<'a> {
        KindColumns {
            step_order,
            location_raw: raw,
            city: None,
            regions: &[],
            country_code: code,
        }
    }

    #[test]
    fn kinds() {
        assert_eq!(
            LocationKind::of(cols(0, "Bergen", Some("NO"))),
            LocationKind::Place
        );
        assert!(matches!(
            LocationKind::of(cols(0, "Norway", Some("NO"))),
            LocationKind::CountryOnly(c) if c.code == "NO"
        ));
        assert_eq!(
            LocationKind::of(cols(-1, "Norway", Some("NO"))),
            LocationKind::Manual
        );
    }
}
