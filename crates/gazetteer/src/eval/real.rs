//! The real-forms set of issue 30: band locations written the way the upstream writes
//! them ("Reading, Berkshire, England", "Zaporizhia", "Anjalankoski, Kymenlaakso",
//! "Uusimaa"), each with its class and its truth, read from a TSV file and turned into
//! [`Row`]s for the same scorer as the generated set ([`super::score`]).

use std::fmt;

use super::{Form, Row, Town};

/// What a real-forms row exercises (docs/gazetteer.md, issue 30).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// A town named with the ceremonial, historic or traditional county it lies in.
    County,
    /// A transliteration, a former name or an exonym ("Kiev", "Dnepropetrovsk", "Oporto").
    Renamed,
    /// A near spelling: a letter doubled or dropped, a missing diacritic, "oe" for "ö".
    Drift,
    /// A municipality merged away ("Anjalankoski": Kouvola since 2009).
    Former,
    /// A village, the named region confirming it.
    Small,
    /// A region alone: no town.
    Region,
    /// "Town, Region, Nation", "Town, Region", two steps: the forms that already worked.
    ThreePart,
    /// The text names a country other than the band's.
    OtherCountry,
}

impl Class {
    /// Every class, in file order.
    pub const ALL: [Class; 8] = [
        Class::County,
        Class::Renamed,
        Class::Drift,
        Class::Former,
        Class::Small,
        Class::Region,
        Class::ThreePart,
        Class::OtherCountry,
    ];

    fn parse(s: &str) -> Option<Class> {
        Class::ALL.into_iter().find(|c| c.as_str() == s)
    }

    /// Its name in the file.
    pub fn as_str(self) -> &'static str {
        match self {
            Class::County => "county",
            Class::Renamed => "renamed",
            Class::Drift => "drift",
            Class::Former => "former",
            Class::Small => "small",
            Class::Region => "region",
            Class::ThreePart => "three-part",
            Class::OtherCountry => "other-country",
        }
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One row of the real-forms set.
#[derive(Debug, Clone, PartialEq)]
pub struct RealRow {
    /// What it exercises.
    pub class: Class,
    /// The row for the scorer: `Town`, `TownRegion` or `Steps` by its shape, `Unknown`
    /// (no town) for a region alone.
    pub row: Row,
}

/// A line of the file that is not `text<TAB>country<TAB>class<TAB>truth`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLine {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub reason: &'static str,
}

impl fmt::Display for BadLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "real-forms line {}: {}", self.line, self.reason)
    }
}

impl std::error::Error for BadLine {}

/// Parses the set (format in the file's header: `text`, `country`, `class`, `truth` as
/// `lat lon` pairs separated by `;`, or `-` for no town). `#` lines are comments.
pub fn parse_real(text: &str) -> Result<Vec<RealRow>, BadLine> {
    let mut rows = Vec::new();
    for (no, line) in text.lines().enumerate() {
        let line_no = no + 1;
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |reason| BadLine {
            line: line_no,
            reason,
        };
        let cols: Vec<&str> = line.split('\t').collect();
        let &[location, country, class, truth] = cols.as_slice() else {
            return Err(bad("expected 4 tab-separated columns"));
        };
        let class = Class::parse(class.trim()).ok_or_else(|| bad("unknown class"))?;
        let towns = parse_truth(truth).ok_or_else(|| bad("bad truth (lat lon[; lat lon] or -)"))?;
        if (class == Class::Region) != towns.is_empty() {
            return Err(bad("a region row has no town, every other row has one"));
        }
        let form = if towns.is_empty() {
            Form::Unknown
        } else if location.contains(';') {
            Form::Steps
        } else if location.contains(',') {
            Form::TownRegion
        } else {
            Form::Town
        };
        rows.push(RealRow {
            class,
            row: Row {
                id: rows.len(),
                form,
                text: location.trim().to_string(),
                country_code: country.trim().to_string(),
                truth: towns
                    .into_iter()
                    .map(|(lat, lon)| Town {
                        name: location.trim().to_string(),
                        geonameid: 0,
                        lat,
                        lon,
                    })
                    .collect(),
            },
        });
    }
    Ok(rows)
}

fn parse_truth(s: &str) -> Option<Vec<(f64, f64)>> {
    let s = s.trim();
    if s == "-" {
        return Some(Vec::new());
    }
    s.split(';')
        .map(|pair| {
            let mut it = pair.split_whitespace();
            let lat: f64 = it.next()?.parse().ok()?;
            let lon: f64 = it.next()?.parse().ok()?;
            let ok = it.next().is_none()
                && (-90.0..=90.0).contains(&lat)
                && (-180.0..=180.0).contains(&lon);
            ok.then_some((lat, lon))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_rows_classes_and_truths() {
        let text = "# comment\n\
            Reading, Berkshire, England\tGB\tcounty\t51.456 -0.971\n\
            Uusimaa\tFI\tregion\t-\n\
            Kiev (early); Lviv (later)\tUA\tthree-part\t50.45 30.52; 49.84 24.03\n\
            Kiev\tUA\trenamed\t50.45 30.52\n";
        let rows = match parse_real(text) {
            Ok(r) => r,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(rows.len(), 4);
        assert_eq!(rows[0].class, Class::County);
        assert_eq!(rows[0].row.form, Form::TownRegion);
        assert_eq!(rows[1].row.form, Form::Unknown);
        assert!(rows[1].row.truth.is_empty());
        assert_eq!(rows[2].row.form, Form::Steps);
        assert_eq!(rows[2].row.truth.len(), 2);
        assert_eq!(rows[3].row.form, Form::Town);
        assert_eq!(rows[3].row.id, 3);
    }

    #[test]
    fn refuses_malformed_lines() {
        for (text, line) in [
            ("Kiev\tUA\trenamed\n", 1),
            ("#\nKiev\tUA\ttown\t50 30\n", 2),
            ("Kiev\tUA\trenamed\t50\n", 1),
            ("Kiev\tUA\trenamed\t95 30\n", 1),
            ("Kiev\tUA\trenamed\t-\n", 1),
            ("Uusimaa\tFI\tregion\t60 25\n", 1),
        ] {
            assert_eq!(parse_real(text).map_err(|e| e.line), Err(line), "{text:?}");
        }
    }
}
