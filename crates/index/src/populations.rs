//! Country populations for the density layer: `countries.tsv` (GeoNames countryInfo, built
//! by `scripts/fetch-gazetteer.sh` beside the gazetteer file, docs/map.md), read on first
//! use and kept by the server's state ([`PopulationTable`], no process-wide copy). A
//! missing or unreadable file gives no populations (the answer's `population` and
//! `per_100k` are then null), not an error.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use tokio::sync::OnceCell;

/// File name, in the folder of `GAZETTEER_PATH`.
pub const FILE_NAME: &str = "countries.tsv";

/// One country of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Country {
    /// ISO 3166-1 numeric code (`None` for GeoNames' 0, e.g. Kosovo).
    pub iso_numeric: Option<u16>,
    /// Inhabitants.
    pub population: u64,
    /// English name.
    pub name: String,
}

/// Countries by upper-case ISO alpha-2 code.
pub type Populations = HashMap<String, Country>;

/// Parses the file's lines (`cc  iso_numeric  population  name`, `#` comments); a
/// malformed line is skipped.
pub fn parse(text: &str) -> Populations {
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let mut c = l.split('\t');
            let cc = c.next()?.trim().to_ascii_uppercase();
            let iso: u16 = c.next()?.trim().parse().ok()?;
            let population: u64 = c.next()?.trim().parse().ok()?;
            let name = c.next()?.trim().to_string();
            (cc.len() == 2).then_some((
                cc,
                Country {
                    iso_numeric: (iso > 0).then_some(iso),
                    population,
                    name,
                },
            ))
        })
        .collect()
}

/// The populations of one server, read once from the file beside its gazetteer.
#[derive(Debug, Default)]
pub struct PopulationTable(OnceCell<Arc<Populations>>);

impl PopulationTable {
    /// An empty table, read on first use.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The populations of the file beside `gazetteer` (read on the first call).
    pub async fn for_gazetteer(&self, gazetteer: &Path) -> Arc<Populations> {
        let path = gazetteer.with_file_name(FILE_NAME);
        self.0
            .get_or_init(|| async move {
                Arc::new(match tokio::fs::read_to_string(&path).await {
                    Ok(text) => parse(&text),
                    Err(e) => {
                        tracing::warn!(path = %path.display(), error = %e,
                            "country populations unavailable (run scripts/fetch-gazetteer.sh): densities are null");
                        Populations::new()
                    }
                })
            })
            .await
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rows_and_skips_bad_ones() {
        let p = parse(
            "# head\nno\t578\t5314336\tNorway\nXK\t0\t1845300\tKosovo\nbad line\nDE\tx\t1\tGermany\n",
        );
        assert_eq!(p.len(), 2);
        assert_eq!(
            p["NO"],
            Country {
                iso_numeric: Some(578),
                population: 5_314_336,
                name: "Norway".into()
            }
        );
        assert_eq!(p["XK"].iso_numeric, None);
    }
}
