//! One place of a step: `City, Region[, Subregion][, Country]` with parenthesised extras.
//! Reads a slash-separated part into its components, and turns the components into a
//! [`Place`]: first name the city, trailing country names taken out into `country_code`.

use serde::Serialize;

use crate::countries::{self, Country};
use crate::marker;
use crate::names::PlaceNames;
use crate::normalize::{is_meaningful, name_key, trim_name};
use crate::split::{groups, outside_groups, split_top};

/// One place named in a location text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Place {
    /// The place as stored in `band_locations.location_raw`: its names joined with `", "`
    /// (`"Sandviken, Gävleborg"`), time markers and parentheses removed.
    pub raw: String,
    /// The most specific name (`"Sandviken"`).
    pub city: String,
    /// The enclosing areas, most specific first (`["Gävleborg"]`), without the country.
    pub regions: Vec<String>,
    /// ISO2 of a country named in the text, else of the band's country, else `None`.
    pub country_code: Option<String>,
}

/// A slash-separated part as read: comma components (each a list of names: the text
/// itself, then its parenthesised extras) and the time labels found in it.
#[derive(Debug, Default)]
pub(crate) struct Part {
    pub components: Vec<Vec<String>>,
    pub labels: Vec<String>,
}

/// Read one part such as `Cape Town (later), Western Cape` or `Francofonte (Syracuse)`.
pub(crate) fn read_part(text: &str) -> Part {
    let mut part = Part::default();
    for component in split_top(text, |c| c == ',') {
        let gs = groups(component);
        let mut names = Vec::new();
        push_name(&mut names, &outside_groups(component, &gs));
        for g in &gs {
            match marker::label(g.inner) {
                Some(l) => {
                    if !part.labels.contains(&l) {
                        part.labels.push(l);
                    }
                }
                // Place information in parentheses: every piece becomes a name, nested
                // parentheses and separators included, so a stored `raw` re-parses the same.
                None => g
                    .inner
                    .split(['(', ')', ',', '/', '\\', ';'])
                    .for_each(|n| push_name(&mut names, n)),
            }
        }
        if !names.is_empty() {
            part.components.push(names);
        }
    }
    part
}

/// Add a name after trimming it and collapsing its inner whitespace, if it means anything.
fn push_name(names: &mut Vec<String>, text: &str) {
    let name = trim_name(text)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if is_meaningful(&name) {
        names.push(name);
    }
}

/// Country names that are also subdivisions of another country: for a band of that
/// country they are read as the subdivision (an American band's `Atlanta, Georgia`).
const SUBDIVISION_NAMES: &[(&str, &str)] = &[
    ("georgia", "US"),
    ("macedonia", "GR"),
    ("luxembourg", "BE"),
    ("moldova", "RO"),
];

/// Countries whose name is also the name of their main city: alone, the name is a place.
const CITY_STATES: &[&str] = &["LU", "MC", "SM", "GI", "VA", "SG", "HK"];

/// Whether a name denotes a country, given the band's country.
///
/// Two-letter codes count only when they are the band's own code: `Los Angeles, CA`,
/// `Bergamo (BG)` or Bavaria's `BY` would otherwise turn into Canada, Bulgaria, Belarus.
fn as_country(name: &str, band: Option<&'static Country>) -> Option<&'static Country> {
    let band_code = band.map(|b| b.code);
    if let Some(c) = countries::by_name(name).filter(|c| !c.is_pseudo()) {
        let key = name_key(name);
        let is_subdivision = SUBDIVISION_NAMES
            .iter()
            .any(|&(n, cc)| n == key && Some(cc) == band_code);
        return (!is_subdivision).then_some(c);
    }
    let is_code = name.len() == 2 && name.bytes().all(|b| b.is_ascii_uppercase());
    band.filter(|b| is_code && b.code == name)
}

/// Build the place from its names, or `None` when it names only a country.
pub(crate) fn build(names: Vec<String>, band: Option<&'static Country>) -> Option<Place> {
    let mut country = None;
    let mut end = names.len();
    while end > 1 {
        match as_country(&names[end - 1], band) {
            Some(c) => {
                // The outermost country named wins (`…, England, UK` → GB either way).
                country.get_or_insert(c);
                end -= 1;
            }
            None => break,
        }
    }
    let city = names.first()?.clone();
    if end == 1
        && let Some(c) = as_country(&city, band)
    {
        if !CITY_STATES.contains(&c.code) {
            return None;
        }
        country.get_or_insert(c);
    }
    let country_code = country
        .or(band.filter(|b| !b.is_pseudo()))
        .map(|c| c.code.to_owned());
    Some(Place {
        raw: names.join(", "),
        city,
        regions: names.get(1..end).unwrap_or_default().to_vec(),
        country_code,
    })
}

/// Re-reads a built place with a gazetteer's knowledge (issue 13): the first region part
/// joins the city when the two form one place name; a town written where the region goes
/// makes two places, each keeping the regions after it. Without a country, as it was.
pub(crate) fn read_names(p: Place, known: &dyn PlaceNames) -> Vec<Place> {
    let (Some(cc), Some(first)) = (p.country_code.as_deref(), p.regions.first()) else {
        return vec![p];
    };
    let joined = format!("{}, {first}", p.city);
    if known.is_place_name(&joined, cc) {
        let regions = p.regions[1..].to_vec();
        return vec![Place {
            city: joined,
            regions,
            ..p
        }];
    }
    if !known.are_two_towns(&p.city, first, cc) {
        return vec![p];
    }
    // What `raw` holds after the city and its regions: the country names written.
    let written = std::iter::once(p.city.as_str())
        .chain(p.regions.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(", ");
    let tail = p.raw.strip_prefix(written.as_str()).unwrap_or_default();
    let rest = &p.regions[1..];
    [p.city.as_str(), first.as_str()]
        .into_iter()
        .map(|city| {
            let mut names = vec![city.to_owned()];
            names.extend(rest.iter().cloned());
            Place {
                raw: format!("{}{tail}", names.join(", ")),
                city: city.to_owned(),
                regions: rest.to_vec(),
                country_code: p.country_code.clone(),
            }
        })
        .collect()
}
