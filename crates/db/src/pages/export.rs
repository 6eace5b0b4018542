//! The derived fields of exported points (`GET /api/export.*`): per `band_locations` row,
//! the parser's town, its country, its town key, how it was placed and the band's
//! upstream URL — never the location text or any other upstream free text.

use crate::Result;
use crate::band_locations::{CENTROID_PROVIDER, GeocodeStatus};
use sqlx::PgExecutor;

/// The derived fields of one row.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ExportRow {
    /// `band_locations.id`.
    pub id: i64,
    /// The parser's city.
    pub city: Option<String>,
    /// Country name.
    pub country: Option<String>,
    /// `geocode_status`.
    pub geocode_status: GeocodeStatus,
    /// Who placed it (`gazetteer`, `geoapify`, `llm+…`, `manual`, `centroid`).
    pub provider: Option<String>,
    /// Town key latitude × 10⁴ (`done` rows).
    pub lat_e4: Option<i32>,
    /// Town key longitude × 10⁴.
    pub lon_e4: Option<i32>,
    /// The band's stored upstream URL.
    pub url: Option<String>,
}

impl ExportRow {
    /// How the point was placed, in the export's vocabulary: `country` (the country's
    /// centroid), `gazetteer` (the offline GeoNames gazetteer), `llm` (a place the LLM
    /// read from the text, then geocoded), `manual` (an operator), `geocoder` (the
    /// external geocoding provider).
    #[must_use]
    pub fn placed_by(&self) -> &'static str {
        let provider = self.provider.as_deref().unwrap_or_default();
        if self.geocode_status == GeocodeStatus::CountryOnly || provider == CENTROID_PROVIDER {
            "country"
        } else if provider == "gazetteer" {
            "gazetteer"
        } else if provider.starts_with("llm") {
            "llm"
        } else if provider == "manual" {
            "manual"
        } else {
            "geocoder"
        }
    }
}

/// The derived fields of the rows `ids` (rows deleted since are missing).
pub async fn rows(db: impl PgExecutor<'_>, ids: &[i64]) -> Result<Vec<ExportRow>> {
    Ok(sqlx::query_as(
        "SELECT bl.id, bl.city, bl.country, bl.geocode_status, bl.provider, \
         CASE WHEN bl.geocode_status = $2 AND bl.lat IS NOT NULL \
              THEN (round(bl.lat::numeric, 4) * 10000)::int END AS lat_e4, \
         CASE WHEN bl.geocode_status = $2 AND bl.lon IS NOT NULL \
              THEN (round(bl.lon::numeric, 4) * 10000)::int END AS lon_e4, \
         NULLIF(b.data->>'url', '') AS url \
         FROM band_locations bl JOIN bands b ON b.ma_id = bl.ma_id WHERE bl.id = ANY($1)",
    )
    .bind(ids)
    .bind(GeocodeStatus::Done)
    .fetch_all(db)
    .await?)
}
