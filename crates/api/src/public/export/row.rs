//! One exported point: the map index's columns (band, step, coordinates) joined with the
//! derived fields of its row read from the database.

use crate::pages::{town, upstream_link};
use bandmap_db::pages::TownKey;
use bandmap_db::pages::export as db_export;
use bandmap_index::map::Snapshot;
use serde::Serialize;
use sqlx::PgPool;
use std::collections::HashMap;

/// One exported point.
#[derive(Debug, Clone, Serialize)]
pub struct ExportPoint {
    /// Upstream band id.
    pub ma_id: i64,
    /// Band name.
    pub name: String,
    /// Upstream page of the band.
    pub url: String,
    /// Step order (-1: an operator's override).
    pub step_order: i32,
    /// Step label.
    pub step_label: Option<String>,
    /// The parser's town.
    pub town: Option<String>,
    /// Town page id (`59.9127_10.7461`), for located places.
    pub town_id: Option<String>,
    /// Town page URL.
    pub town_url: Option<String>,
    /// Country of the place.
    pub country: Option<String>,
    /// Latitude.
    pub lat: f64,
    /// Longitude.
    pub lon: f64,
    /// How the point was placed (`country`, `gazetteer`, `geocoder`, `llm`, `manual`; `unknown`
    /// for a row deleted while the export was written).
    pub placed_by: &'static str,
}

fn text(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_string())
}

/// The points at `batch` (snapshot point indexes), in that order.
pub async fn read(
    pool: &PgPool,
    snap: &Snapshot,
    config: &bandmap_config::Config,
    base: &str,
    batch: &[u32],
) -> Result<Vec<ExportPoint>, bandmap_db::DbError> {
    let ids: Vec<i64> = batch
        .iter()
        .map(|&p| snap.points.location_id[p as usize])
        .collect();
    let derived: HashMap<i64, db_export::ExportRow> = db_export::rows(pool, &ids)
        .await?
        .into_iter()
        .map(|r| (r.id, r))
        .collect();
    Ok(batch
        .iter()
        .map(|&p| {
            let i = p as usize;
            let band = snap.points.band[i] as usize;
            let ma_id = snap.bands.ma_id[band];
            let row = derived.get(&snap.points.location_id[i]);
            let key = row.and_then(|r| {
                Some(TownKey {
                    lat_e4: r.lat_e4?,
                    lon_e4: r.lon_e4?,
                })
            });
            let town = row.and_then(|r| r.city.clone()).filter(|c| !c.is_empty());
            ExportPoint {
                ma_id,
                name: snap.texts.get(snap.bands.name[band]).to_string(),
                url: upstream_link::band_url(config, ma_id, row.and_then(|r| r.url.as_deref())),
                step_order: snap.points.step_order[i],
                step_label: text(snap.strings.get(snap.points.step_label[i])),
                town_id: key.map(|k| k.to_string()),
                town_url: key.map(|k| {
                    format!(
                        "{base}{}",
                        town::path(k, town.as_deref().unwrap_or_default())
                    )
                }),
                town,
                country: row.and_then(|r| r.country.clone()),
                lat: snap.points.lat[i],
                lon: snap.points.lon[i],
                placed_by: row.map_or("unknown", db_export::ExportRow::placed_by),
            }
        })
        .collect())
}
