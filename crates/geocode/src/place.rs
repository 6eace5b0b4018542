//! What is resolved ([`PlaceQuery`]: one place of one step) and the provider queries built
//! from it, most specific first (rule 14).

use bandmap_location::countries;

pub use bandmap_db::band_locations::kind::country_only;
pub use bandmap_db::band_locations::{CENTROID_CONFIDENCE, CENTROID_PROVIDER};

/// One place to resolve: the parsed parts of a `band_locations` row.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PlaceQuery {
    /// Place name as written (`Bergen`).
    pub city: String,
    /// Region parts, most specific first (`["Vestland"]`).
    pub regions: Vec<String>,
    /// ISO 3166-1 alpha-2 code, any case (`NO`).
    pub country_code: Option<String>,
    /// Country name (`Norway`); when absent it is taken from the code.
    pub country_name: Option<String>,
}

/// One provider request: free text plus the country restriction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderQuery {
    /// The `text` parameter.
    pub text: String,
    /// Lower-case alpha-2 code for `filter=countrycode:xx`.
    pub country_code: Option<String>,
}

impl PlaceQuery {
    /// Builds a query from a row's stored parts; when the city was not stored, the raw
    /// place (`City, Region, …`) is split on commas.
    pub fn from_row(
        location_raw: &str,
        city: Option<&str>,
        regions: &[String],
        country_code: Option<&str>,
        country_name: Option<&str>,
    ) -> PlaceQuery {
        let (city, regions) = match city.map(str::trim).filter(|c| !c.is_empty()) {
            Some(c) => (c.to_string(), regions.to_vec()),
            None => {
                let mut parts = location_raw
                    .split(',')
                    .map(str::trim)
                    .filter(|p| !p.is_empty())
                    .map(str::to_string);
                let city = parts.next().unwrap_or_default();
                (city, parts.collect())
            }
        };
        PlaceQuery {
            city,
            regions,
            country_code: country_code.map(str::to_string),
            country_name: country_name.map(str::to_string),
        }
    }

    /// Upper-case code, when it is a plausible alpha-2 code.
    pub(crate) fn code_upper(&self) -> Option<String> {
        let c = self.country_code.as_deref()?.trim();
        (c.len() == 2 && c.chars().all(|ch| ch.is_ascii_alphabetic()))
            .then(|| c.to_ascii_uppercase())
    }

    /// Country name for the query text: the given name, else the name of the code.
    fn country_label(&self) -> Option<String> {
        self.country_name
            .as_deref()
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(str::to_string)
            .or_else(|| {
                let code = self.code_upper()?;
                countries::by_code(&code).map(|c| c.name.to_string())
            })
    }

    /// Provider queries from most to least specific, duplicates removed:
    /// place + regions + country, place + country, place alone (each restricted with
    /// `filter=countrycode` when the code is known). Empty when there is no place name.
    pub fn fallbacks(&self) -> Vec<ProviderQuery> {
        let city = self.city.trim();
        if city.is_empty() {
            return Vec::new();
        }
        let regions: Vec<&str> = self
            .regions
            .iter()
            .map(|r| r.trim())
            .filter(|r| !r.is_empty())
            .collect();
        let country = self.country_label();
        let code = self.code_upper().map(|c| c.to_ascii_lowercase());
        let join = |parts: Vec<&str>| parts.join(", ");

        let mut texts = Vec::with_capacity(3);
        let mut full = vec![city];
        full.extend(regions.iter().copied());
        full.extend(country.as_deref());
        texts.push(join(full));
        let mut with_country = vec![city];
        with_country.extend(country.as_deref());
        texts.push(join(with_country));
        texts.push(city.to_string());

        let mut out: Vec<ProviderQuery> = Vec::with_capacity(3);
        for text in texts {
            if !out.iter().any(|q| q.text == text) {
                out.push(ProviderQuery {
                    text,
                    country_code: code.clone(),
                });
            }
        }
        out
    }

    /// A short human label (`Bergen, Vestland [NO]`) for messages.
    pub(crate) fn label(&self) -> String {
        let mut parts = vec![self.city.as_str()];
        parts.extend(self.regions.iter().map(String::as_str));
        match self.code_upper() {
            Some(c) => format!("{} [{c}]", parts.join(", ")),
            None => parts.join(", "),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(city: &str, regions: &[&str], cc: Option<&str>) -> PlaceQuery {
        PlaceQuery {
            city: city.into(),
            regions: regions.iter().map(|s| s.to_string()).collect(),
            country_code: cc.map(str::to_string),
            country_name: None,
        }
    }

    fn texts(p: &PlaceQuery) -> Vec<String> {
        p.fallbacks().into_iter().map(|f| f.text).collect()
    }

    #[test]
    fn fallbacks_go_from_most_to_least_specific() {
        let p = q("Bergen", &["Vestland"], Some("no"));
        assert_eq!(
            texts(&p),
            ["Bergen, Vestland, Norway", "Bergen, Norway", "Bergen"]
        );
        assert!(
            p.fallbacks()
                .iter()
                .all(|f| f.country_code.as_deref() == Some("no"))
        );
    }

    #[test]
    fn duplicates_are_removed_and_no_country_means_no_filter() {
        assert_eq!(texts(&q("Oslo", &[], Some("NO"))), ["Oslo, Norway", "Oslo"]);
        let p = q("Zagreb", &["Grad Zagreb"], None);
        assert_eq!(texts(&p), ["Zagreb, Grad Zagreb", "Zagreb"]);
        assert!(p.fallbacks().iter().all(|f| f.country_code.is_none()));
        assert!(q("  ", &[], Some("NO")).fallbacks().is_empty());
    }

    #[test]
    fn a_row_naming_only_its_country_is_country_only() {
        let no = country_only("Norway", None, &[], Some("NO")).map(|c| c.code);
        assert_eq!(no, Some("NO"));
        assert_eq!(
            country_only(" norway ", Some(" "), &[], None).map(|c| c.code),
            Some("NO")
        );
        // A place, a region, another country's name, or a pseudo country are not.
        assert!(country_only("Norway", Some("Norway"), &[], Some("NO")).is_none());
        assert!(country_only("Norway", None, &["Vestland".into()], Some("NO")).is_none());
        assert!(country_only("Sweden", None, &[], Some("NO")).is_none());
        assert!(country_only("Bergen", None, &[], Some("NO")).is_none());
        assert!(country_only("Unknown", None, &[], Some("ZZ")).is_none());
    }

    #[test]
    fn from_row_splits_raw_when_city_is_missing() {
        let p = PlaceQuery::from_row("Harlow, Essex, England", None, &[], Some("GB"), None);
        assert_eq!(p.city, "Harlow");
        assert_eq!(p.regions, ["Essex", "England"]);
        let p = PlaceQuery::from_row("x", Some("Bergen"), &["Vestland".into()], None, None);
        assert_eq!(p.city, "Bergen");
    }
}
