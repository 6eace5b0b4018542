//! One band's page: its catalogue columns and its steps in path order, each located step
//! with its town key when it is a place (a country centroid is no town).

use super::TownKey;
use crate::Result;
use crate::band_locations::GeocodeStatus;
use sqlx::PgExecutor;

/// A band as its page shows it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct BandPage {
    /// Upstream id.
    pub ma_id: i64,
    /// Name.
    pub name: String,
    /// Genre.
    pub genre: Option<String>,
    /// Country name.
    pub country: Option<String>,
    /// Status.
    pub status: Option<String>,
    /// Formation year.
    pub formed_year: Option<i32>,
    /// Upstream page, when the crawler stored it.
    pub url: Option<String>,
}

/// One step of a band's path.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct PageStep {
    /// The parser's step (path order).
    pub parsed_step: i32,
    /// Step label.
    pub step_label: Option<String>,
    /// Location text.
    pub location_raw: String,
    /// The parser's city.
    pub city: Option<String>,
    /// Country name.
    pub country: Option<String>,
    /// Latitude when located (a place or a country centroid).
    pub lat: Option<f64>,
    /// Longitude when located.
    pub lon: Option<f64>,
    /// Town key latitude (× 10⁴) when the step is a located place.
    pub lat_e4: Option<i32>,
    /// Town key longitude (× 10⁴) when the step is a located place.
    pub lon_e4: Option<i32>,
}

impl PageStep {
    /// The town of the step, when it is a located place.
    #[must_use]
    pub fn town(&self) -> Option<TownKey> {
        Some(TownKey {
            lat_e4: self.lat_e4?,
            lon_e4: self.lon_e4?,
        })
    }
}

/// The band `ma_id`, or `None`.
pub async fn band(db: impl PgExecutor<'_>, ma_id: i64) -> Result<Option<BandPage>> {
    let row = sqlx::query_as(
        "SELECT ma_id, name, genre, country, status, formed_year, \
         NULLIF(data->>'url', '') AS url FROM bands WHERE ma_id = $1",
    )
    .bind(ma_id)
    .fetch_optional(db)
    .await?;
    Ok(row)
}

/// The steps of band `ma_id` in path order (`parsed_step`, then id: a manual override
/// keeps the place of the step it replaced, as on the card).
pub async fn steps(db: impl PgExecutor<'_>, ma_id: i64) -> Result<Vec<PageStep>> {
    let rows = sqlx::query_as(
        "SELECT bl.parsed_step, bl.step_label, bl.location_raw, bl.city, bl.country, \
         CASE WHEN bl.geocode_status = ANY($2) THEN bl.lat END AS lat, \
         CASE WHEN bl.geocode_status = ANY($2) THEN bl.lon END AS lon, \
         CASE WHEN bl.geocode_status = $3 AND bl.lat IS NOT NULL \
              THEN (round(bl.lat::numeric, 4) * 10000)::int END AS lat_e4, \
         CASE WHEN bl.geocode_status = $3 AND bl.lon IS NOT NULL \
              THEN (round(bl.lon::numeric, 4) * 10000)::int END AS lon_e4 \
         FROM band_locations bl WHERE bl.ma_id = $1 ORDER BY bl.parsed_step, bl.id",
    )
    .bind(ma_id)
    .bind(&GeocodeStatus::LOCATED[..])
    .bind(GeocodeStatus::Done)
    .fetch_all(db)
    .await?;
    Ok(rows)
}
