//! The country table (`data/countries.csv`): codes, MA names, the European flag, a
//! representative point, aliases; and lookups by code, by name (or alias) or either.
//!
//! The CSV is compiled in and parsed once. A malformed line is skipped at run time, never
//! a panic; the unit tests fail on any malformed line, so it cannot ship.

use std::collections::HashMap;
use std::sync::LazyLock;

use crate::normalize::name_key;

/// One country as Metal Archives names it.
#[derive(Debug, Clone, PartialEq)]
pub struct Country {
    /// ISO 3166-1 alpha-2 code, upper case (`XX` International, `ZZ` Unknown).
    pub code: &'static str,
    /// The name exactly as Metal Archives writes it (`Czechia`, `Türkiye`).
    pub name: &'static str,
    /// Whether the service keeps bands of this country (see docs/location-parsing.md).
    pub european: bool,
    /// Latitude of a representative interior point, WGS84 degrees.
    pub lat: f64,
    /// Longitude of a representative interior point, WGS84 degrees.
    pub lon: f64,
    /// Other spellings: English variants, local names, the UK's nations.
    pub aliases: Vec<&'static str>,
}

impl Country {
    /// Whether this is one of MA's pseudo countries (`XX` International, `ZZ` Unknown),
    /// which have no territory to put a band on.
    pub fn is_pseudo(&self) -> bool {
        matches!(self.code, "XX" | "ZZ")
    }
}

const CSV: &str = include_str!("../data/countries.csv");

/// The parsed table plus its indexes, built on first use.
struct Table {
    rows: Vec<Country>,
    by_code: HashMap<String, usize>,
    by_key: HashMap<String, usize>,
}

static TABLE: LazyLock<Table> = LazyLock::new(|| {
    let (rows, _errors) = parse_csv(CSV);
    let mut by_code = HashMap::new();
    let mut by_key = HashMap::new();
    for (i, c) in rows.iter().enumerate() {
        by_code.entry(c.code.to_ascii_uppercase()).or_insert(i);
        for n in std::iter::once(&c.name).chain(c.aliases.iter()) {
            by_key.entry(name_key(n)).or_insert(i);
        }
    }
    Table {
        rows,
        by_code,
        by_key,
    }
});

/// Parse the CSV text: the good rows, and one message per bad line (with its line number).
fn parse_csv(text: &'static str) -> (Vec<Country>, Vec<String>) {
    let mut rows = Vec::new();
    let mut errors = Vec::new();
    let lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .skip(1); // header
    for (n, line) in lines {
        match parse_line(line) {
            Ok(c) => rows.push(c),
            Err(e) => errors.push(format!("line {}: {e}: {line}", n + 1)),
        }
    }
    (rows, errors)
}

fn parse_line(line: &'static str) -> Result<Country, &'static str> {
    let f: Vec<&'static str> = line.split(',').map(str::trim).collect();
    let [code, name, european, lat, lon, aliases] = f.as_slice() else {
        return Err("expected 6 fields");
    };
    if code.len() != 2 || !code.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err("code is not two upper-case letters");
    }
    if name.is_empty() {
        return Err("empty name");
    }
    let european = match *european {
        "true" => true,
        "false" => false,
        _ => return Err("european is not true/false"),
    };
    let lat: f64 = lat.parse().map_err(|_| "bad lat")?;
    let lon: f64 = lon.parse().map_err(|_| "bad lon")?;
    if !(-90.0..=90.0).contains(&lat) || !(-180.0..=180.0).contains(&lon) {
        return Err("coordinates out of range");
    }
    let aliases = aliases
        .split('|')
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .collect();
    Ok(Country {
        code,
        name,
        european,
        lat,
        lon,
        aliases,
    })
}

/// Every country of the table, in file order.
pub fn all() -> &'static [Country] {
    &TABLE.rows
}

/// The country with this ISO2 code, case-insensitively (`"no"` → Norway).
pub fn by_code(code: &str) -> Option<&'static Country> {
    let t = &*TABLE;
    t.by_code
        .get(&code.trim().to_ascii_uppercase())
        .and_then(|&i| t.rows.get(i))
}

/// The country with this MA name or alias, ignoring case, accents, punctuation and extra
/// whitespace (`"czech  republic"`, `"Turkiye"`, `"England"`).
pub fn by_name(name: &str) -> Option<&'static Country> {
    let t = &*TABLE;
    t.by_key.get(&name_key(name)).and_then(|&i| t.rows.get(i))
}

/// A country given either as a code or as a name (the band's `country` column may hold
/// either). A two-letter input is tried as a code first, so `"UK"` still finds the UK
/// through its alias.
pub fn resolve(code_or_name: &str) -> Option<&'static Country> {
    let s = code_or_name.trim();
    let as_code = if s.chars().count() == 2 {
        by_code(s)
    } else {
        None
    };
    as_code.or_else(|| by_name(s))
}

/// Whether the country (code or name) is one the service keeps. Unknown input is not.
pub fn is_european(code_or_name: &str) -> bool {
    resolve(code_or_name).is_some_and(|c| c.european)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn every_line_parses() {
        let (rows, errors) = parse_csv(CSV);
        assert!(errors.is_empty(), "{errors:#?}");
        assert!(rows.len() >= 60, "only {} rows", rows.len());
    }

    #[test]
    fn codes_and_name_keys_are_unique() {
        let mut codes = HashSet::new();
        let mut keys = HashSet::new();
        for c in all() {
            assert!(codes.insert(c.code), "duplicate code {}", c.code);
            for n in std::iter::once(&c.name).chain(c.aliases.iter()) {
                assert!(keys.insert(name_key(n)), "duplicate name/alias {n}");
            }
        }
    }

    #[test]
    fn names_and_codes_resolve_both_ways() {
        for c in all() {
            assert_eq!(by_code(c.code).map(|x| x.code), Some(c.code));
            assert_eq!(
                by_code(&c.code.to_lowercase()).map(|x| x.code),
                Some(c.code)
            );
            assert_eq!(by_name(c.name).map(|x| x.code), Some(c.code), "{}", c.name);
            assert_eq!(resolve(c.name).map(|x| x.code), Some(c.code));
            assert_eq!(resolve(c.code).map(|x| x.code), Some(c.code));
            for a in &c.aliases {
                assert_eq!(by_name(a).map(|x| x.code), Some(c.code), "alias {a}");
            }
        }
    }

    #[test]
    fn european_centroids_lie_in_europe() {
        for c in all() {
            assert!((-90.0..=90.0).contains(&c.lat) && (-180.0..=180.0).contains(&c.lon));
            if c.european {
                assert!(
                    (34.0..=81.0).contains(&c.lat) && (-25.0..=60.0).contains(&c.lon),
                    "{} centroid {},{} is outside Europe",
                    c.code,
                    c.lat,
                    c.lon
                );
            }
        }
    }

    #[test]
    fn reference_european_list_is_present() {
        let codes = "AX AL AD AT BY BE BA BG HR CY CZ DK EE FO FI FR DE GG HU IS IE IM IT JE \
                     LV LI LT LU MT MD MC ME GI GR NL MK NO PL PT RO RU SM RS SK SI ES SJ SE \
                     CH UA GB TR GE AM AZ XK VA";
        for code in codes.split_whitespace() {
            assert!(is_european(code), "{code} should be European");
        }
        for code in ["KZ", "GL", "US", "XX", "ZZ", "JP"] {
            assert!(!is_european(code), "{code} should not be European");
        }
    }

    #[test]
    fn lookups_are_forgiving() {
        assert_eq!(by_name("  czech   REPUBLIC ").map(|c| c.code), Some("CZ"));
        assert_eq!(by_name("Turkiye").map(|c| c.code), Some("TR"));
        assert_eq!(by_name("turkey").map(|c| c.code), Some("TR"));
        assert_eq!(by_name("aland islands").map(|c| c.code), Some("AX"));
        assert_eq!(by_name("Scotland").map(|c| c.code), Some("GB"));
        assert_eq!(by_name("u.k.").map(|c| c.code), Some("GB"));
        assert_eq!(resolve("uk").map(|c| c.code), Some("GB"));
        assert_eq!(resolve("no").map(|c| c.code), Some("NO"));
        assert_eq!(resolve("РОССИЯ").map(|c| c.code), Some("RU"));
        assert!(resolve("Atlantis").is_none());
        assert!(resolve("").is_none());
        assert!(is_european("Norway") && is_european("se") && !is_european("Nowhere"));
    }
}
