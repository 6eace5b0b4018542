//! One town: its name and country (the most frequent values of its rows) and its bands,
//! each with what it did there — formed there (its first step is here), arrived (a later
//! step is here), left (a step after its first one here is elsewhere).

use crate::Result;
use crate::band_locations::GeocodeStatus;
use sqlx::PgExecutor;
use std::fmt;

/// Most bands listed on one town page (a capital holds a few hundred).
pub const MAX_BANDS: i64 = 2000;

/// The stable id of a town: its point in whole 1e-4 degrees, written `59.9127_10.7461`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TownKey {
    /// Latitude × 10⁴.
    pub lat_e4: i32,
    /// Longitude × 10⁴.
    pub lon_e4: i32,
}

impl TownKey {
    /// The key written in a URL (`59.9127_10.7461`), or `None` when it is not two decimal
    /// numbers within latitude and longitude bounds. A key written another way
    /// (`59.91271_10.7461`) parses to the nearest key; callers compare its
    /// [`Display`](fmt::Display) with what they were given to send to the canonical one.
    #[must_use]
    pub fn parse(text: &str) -> Option<TownKey> {
        let (lat, lon) = text.split_once('_')?;
        let number = |s: &str| -> Option<f64> {
            let ok = !s.is_empty()
                && s.len() <= 16
                && s.chars()
                    .all(|c| c.is_ascii_digit() || c == '.' || c == '-');
            ok.then(|| s.parse::<f64>().ok()).flatten()
        };
        let (lat, lon) = (number(lat)?, number(lon)?);
        if !(-90.0..=90.0).contains(&lat) || !(-180.0..=180.0).contains(&lon) {
            return None;
        }
        Some(TownKey {
            lat_e4: (lat * 1e4).round() as i32,
            lon_e4: (lon * 1e4).round() as i32,
        })
    }

    /// Latitude in degrees.
    #[must_use]
    pub fn lat(self) -> f64 {
        f64::from(self.lat_e4) / 1e4
    }

    /// Longitude in degrees.
    #[must_use]
    pub fn lon(self) -> f64 {
        f64::from(self.lon_e4) / 1e4
    }
}

impl fmt::Display for TownKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.4}_{:.4}", self.lat(), self.lon())
    }
}

/// A town's name and country.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Town {
    /// The parser's city name most of its rows carry.
    pub city: Option<String>,
    /// The location text most of its rows carry (when no row has a city).
    pub location_raw: Option<String>,
    /// Country name.
    pub country: Option<String>,
    /// ISO 3166-1 alpha-2 code.
    pub country_code: Option<String>,
    /// Its rows.
    pub rows: i64,
}

impl Town {
    /// The name shown: the city, else the location text.
    #[must_use]
    pub fn name(&self) -> &str {
        self.city
            .as_deref()
            .filter(|c| !c.trim().is_empty())
            .or(self.location_raw.as_deref())
            .unwrap_or("?")
    }
}

/// A band of a town and what it did there.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TownBand {
    /// Upstream id.
    pub ma_id: i64,
    /// Name.
    pub name: String,
    /// Genre.
    pub genre: Option<String>,
    /// Status.
    pub status: Option<String>,
    /// Formation year.
    pub formed_year: Option<i32>,
    /// Its first step is here.
    pub formed_here: bool,
    /// A step after its first one is here.
    pub arrived: bool,
    /// A step after its first one here is elsewhere.
    pub left_town: bool,
}

/// The box around a key holding every point that rounds to it: half a key step and a
/// little more each way (`min_lon, min_lat, max_lon, max_lat`).
pub(crate) fn envelope(key: TownKey) -> [f64; 4] {
    let pad = 0.000_051;
    [
        key.lon() - pad,
        key.lat() - pad,
        key.lon() + pad,
        key.lat() + pad,
    ]
}

/// The town at `key`, or `None` when no located place row rounds to it.
pub async fn town(db: impl PgExecutor<'_>, key: TownKey) -> Result<Option<Town>> {
    const SQL: &str = concat!(
        "SELECT mode() WITHIN GROUP (ORDER BY bl.city) AS city, \
         mode() WITHIN GROUP (ORDER BY bl.location_raw) AS location_raw, \
         mode() WITHIN GROUP (ORDER BY bl.country) AS country, \
         mode() WITHIN GROUP (ORDER BY bl.country_code) AS country_code, \
         count(*) AS rows \
         FROM band_locations bl WHERE ",
        at_town!()
    );
    let [a, b, c, d] = envelope(key);
    let town: Town = sqlx::query_as(SQL)
        .bind(key.lat_e4)
        .bind(key.lon_e4)
        .bind(GeocodeStatus::Done)
        .bind(a)
        .bind(b)
        .bind(c)
        .bind(d)
        .fetch_one(db)
        .await?;
    Ok((town.rows > 0).then_some(town))
}

/// The bands of the town at `key` (at most [`MAX_BANDS`]), oldest formation first.
pub async fn bands(db: impl PgExecutor<'_>, key: TownKey) -> Result<Vec<TownBand>> {
    // A band's path is its rows by parser step (a manual override keeps its step). Unlocated
    // later steps count as elsewhere: the band said it moved, even if not where to yet.
    const SQL: &str = concat!(
        "WITH here AS (SELECT bl.id, bl.ma_id, bl.parsed_step FROM band_locations bl WHERE ",
        at_town!(),
        "), \
         per_band AS (SELECT ma_id, min(parsed_step) AS first_here, \
                             max(parsed_step) AS last_here FROM here GROUP BY ma_id), \
         paths AS (SELECT bl.ma_id, min(bl.parsed_step) AS first_step, \
                          coalesce(bool_or(bl.parsed_step > p.first_here \
                                           AND bl.id NOT IN (SELECT id FROM here)), false) \
                            AS moved_on \
                   FROM band_locations bl JOIN per_band p ON p.ma_id = bl.ma_id \
                   GROUP BY bl.ma_id) \
         SELECT b.ma_id, b.name, b.genre, b.status, b.formed_year, \
                p.first_here = t.first_step AS formed_here, \
                p.last_here > t.first_step AS arrived, \
                t.moved_on AS left_town \
         FROM per_band p JOIN paths t ON t.ma_id = p.ma_id JOIN bands b ON b.ma_id = p.ma_id \
         ORDER BY b.formed_year NULLS LAST, lower(b.name), b.ma_id LIMIT $8"
    );
    let [a, b, c, d] = envelope(key);
    let rows = sqlx::query_as(SQL)
        .bind(key.lat_e4)
        .bind(key.lon_e4)
        .bind(GeocodeStatus::Done)
        .bind(a)
        .bind(b)
        .bind(c)
        .bind(d)
        .bind(MAX_BANDS)
        .fetch_all(db)
        .await?;
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_parse_round_and_print_canonically() {
        let k = TownKey::parse("59.9127_10.7461").unwrap();
        assert_eq!((k.lat_e4, k.lon_e4), (599_127, 107_461));
        assert_eq!(k.to_string(), "59.9127_10.7461");
        let k = TownKey::parse("-33.87_151.2").unwrap();
        assert_eq!(k.to_string(), "-33.8700_151.2000");
        let k = TownKey::parse("0.00004_-0.00006").unwrap();
        assert_eq!(k.to_string(), "0.0000_-0.0001");
        for bad in [
            "",
            "59.9",
            "a_b",
            "91_0",
            "0_181",
            "NaN_0",
            "inf_0",
            "1e3_0",
            "59.9_10.7_1",
            "<img src=x>_1",
        ] {
            assert_eq!(TownKey::parse(bad), None, "{bad}");
        }
    }
}
