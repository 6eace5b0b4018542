//! The lists of the sitemap: every town and every band, in pages of [`PAGE`] entries
//! (a sitemap file holds at most 50,000 URLs).

use super::TownKey;
use crate::Result;
use crate::band_locations::GeocodeStatus;
use sqlx::PgExecutor;

/// Entries of one sitemap file.
pub const PAGE: i64 = 40_000;

/// A town of the sitemap.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TownEntry {
    /// Key latitude × 10⁴.
    pub lat_e4: i32,
    /// Key longitude × 10⁴.
    pub lon_e4: i32,
    /// The city most of its rows carry.
    pub city: Option<String>,
    /// The location text most of its rows carry.
    pub location_raw: Option<String>,
}

impl TownEntry {
    /// Its key.
    #[must_use]
    pub fn key(&self) -> TownKey {
        TownKey {
            lat_e4: self.lat_e4,
            lon_e4: self.lon_e4,
        }
    }
}

/// Number of towns.
pub async fn count_towns(db: impl PgExecutor<'_>) -> Result<i64> {
    const SQL: &str = concat!(
        "SELECT count(*) FROM (SELECT DISTINCT ",
        town_key!(),
        " FROM band_locations bl \
         WHERE bl.geocode_status = $1 AND bl.lat IS NOT NULL AND bl.lon IS NOT NULL) t"
    );
    Ok(sqlx::query_scalar(SQL)
        .bind(GeocodeStatus::Done)
        .fetch_one(db)
        .await?)
}

/// Towns `page × PAGE ..` in key order.
pub async fn towns(db: impl PgExecutor<'_>, page: i64) -> Result<Vec<TownEntry>> {
    const SQL: &str = concat!(
        "SELECT lat_e4, lon_e4, mode() WITHIN GROUP (ORDER BY city) AS city, \
                mode() WITHIN GROUP (ORDER BY location_raw) AS location_raw \
         FROM (SELECT ",
        town_key!(),
        ", bl.city, bl.location_raw FROM band_locations bl \
               WHERE bl.geocode_status = $1 AND bl.lat IS NOT NULL AND bl.lon IS NOT NULL) t \
         GROUP BY lat_e4, lon_e4 ORDER BY lat_e4, lon_e4 LIMIT $2 OFFSET $3"
    );
    Ok(sqlx::query_as(SQL)
        .bind(GeocodeStatus::Done)
        .bind(PAGE)
        .bind(page.saturating_mul(PAGE))
        .fetch_all(db)
        .await?)
}

/// Number of bands.
pub async fn count_bands(db: impl PgExecutor<'_>) -> Result<i64> {
    Ok(sqlx::query_scalar("SELECT count(*) FROM bands")
        .fetch_one(db)
        .await?)
}

/// Band ids and names `page × PAGE ..` in id order.
pub async fn bands(db: impl PgExecutor<'_>, page: i64) -> Result<Vec<(i64, String)>> {
    Ok(
        sqlx::query_as("SELECT ma_id, name FROM bands ORDER BY ma_id LIMIT $1 OFFSET $2")
            .bind(PAGE)
            .bind(page.saturating_mul(PAGE))
            .fetch_all(db)
            .await?,
    )
}
