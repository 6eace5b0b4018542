//! `GET /api/export.geojson` and `GET /api/export.csv` (issue 28): every point the map
//! shows for the filters of `/api/clusters`, with derived fields only — band id, name and
//! upstream URL, step order and label, the parser's town and its page id, country,
//! coordinates, how the point was placed — never the location text or other upstream
//! free text. The set of points is the map index's (so the export counts exactly what
//! the clusters count); the derived fields are read from the database in batches while
//! the body streams. The GeoNames and upstream credits are in the file.

mod csv;
mod geojson;
mod row;

use super::map_state::MapState;
use super::params::MapFilterParams;
use crate::error::{ApiError, ErrorBody};
use crate::extract::Query;
use crate::pages::origin;
use crate::state::AppState;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bandmap_index::map::Snapshot;
use row::ExportPoint;
use sqlx::PgPool;
use std::sync::Arc;

/// Points read from the database per batch while streaming.
const BATCH: usize = 1000;

/// The credit line of every export.
pub fn credits(config: &bandmap_config::Config) -> String {
    format!(
        "Band Map export. Bands: Encyclopaedia Metallum ({}). Places: GeoNames \
         (https://www.geonames.org/, CC BY 4.0) and the map's geocoders.",
        config.upstream.base_url.as_str().trim_end_matches('/')
    )
}

/// The two formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    GeoJson,
    Csv,
}

/// Points for the filters, as a GeoJSON FeatureCollection.
#[utoipa::path(get, path = "/export.geojson", tag = "public", params(MapFilterParams),
    responses(
        (status = 200, description = "GeoJSON FeatureCollection, one Point feature per located step, streamed; properties ma_id, name, url, step_order, step_label, town, town_id, town_url, country, lat, lon, placed_by (country | gazetteer | geocoder | llm | manual | unknown); top-level attribution with the GeoNames and upstream credits", content_type = "application/geo+json", body = Object),
        (status = 400, description = "malformed parameter", body = ErrorBody),
        (status = 429, description = "too many requests from this client address", body = ErrorBody)))]
pub async fn export_geojson(
    State(state): State<AppState>,
    Query(p): Query<MapFilterParams>,
) -> Result<Response, ApiError> {
    export(state, p, Format::GeoJson).await
}

/// Points for the filters, as CSV.
#[utoipa::path(get, path = "/export.csv", tag = "public", params(MapFilterParams),
    responses(
        (status = 200, description = "CSV (UTF-8, comma, header row), one row per located step, streamed, after `#` comment lines with the GeoNames and upstream credits; columns ma_id, name, url, step_order, step_label, town, town_id, town_url, country, lat, lon, placed_by", content_type = "text/csv", body = String),
        (status = 400, description = "malformed parameter", body = ErrorBody),
        (status = 429, description = "too many requests from this client address", body = ErrorBody)))]
pub async fn export_csv(
    State(state): State<AppState>,
    Query(p): Query<MapFilterParams>,
) -> Result<Response, ApiError> {
    export(state, p, Format::Csv).await
}

/// The exports' query is the filters of `GET /api/clusters` (no box, no zoom: the whole
/// map for those filters).
async fn export(state: AppState, p: MapFilterParams, format: Format) -> Result<Response, ApiError> {
    let filter = p.filter();
    let map: MapState = axum::extract::FromRef::from_ref(&state);
    let snap = map.snapshot().await.map_err(ApiError::internal)?;
    let mut points: Vec<u32> = if filter.is_empty() {
        (0..snap.len() as u32).collect()
    } else {
        snap.filter_index(&filter).matched().to_vec()
    };
    // By band, then along its path: the order a reader expects.
    points.sort_by_key(|&p| {
        let i = p as usize;
        let band = snap.points.band[i] as usize;
        (
            snap.bands.ma_id[band],
            snap.points.step_order[i],
            snap.points.location_id[i],
        )
    });
    let cursor = Cursor {
        snap,
        points,
        next: 0,
        pool: state.public_pool.clone(),
        config: state.config.clone(),
        base: origin::public_base(&state.config),
        format,
        stage: Stage::Head,
    };
    // Fused: the compression layer polls the body once more after its end, which an
    // `unfold` stream answers with a panic.
    let body = Body::from_stream(futures::StreamExt::fuse(futures::stream::unfold(
        cursor,
        Cursor::step,
    )));
    let (content_type, file) = match format {
        Format::GeoJson => ("application/geo+json", "bandmap-export.geojson"),
        Format::Csv => ("text/csv; charset=utf-8", "bandmap-export.csv"),
    };
    let mut res = (StatusCode::OK, body).into_response();
    let h = res.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{file}\"")) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    Ok(res)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Head,
    Rows,
    Tail,
    Done,
}

/// The state of one streamed export.
struct Cursor {
    snap: Arc<Snapshot>,
    points: Vec<u32>,
    next: usize,
    pool: PgPool,
    config: Arc<bandmap_config::Config>,
    base: String,
    format: Format,
    stage: Stage,
}

impl Cursor {
    /// The next chunk of the body. A database failure mid-stream ends the body early (the
    /// status is sent already): the client sees a truncated file, and the cause is logged.
    async fn step(mut self) -> Option<(Result<Bytes, std::io::Error>, Cursor)> {
        match self.stage {
            Stage::Head => {
                self.stage = Stage::Rows;
                let credits = credits(&self.config);
                let head = match self.format {
                    Format::GeoJson => geojson::head(&credits),
                    Format::Csv => csv::head(&credits),
                };
                Some((Ok(Bytes::from(head)), self))
            }
            Stage::Rows => {
                if self.next >= self.points.len() {
                    self.stage = Stage::Tail;
                    return Some((Ok(Bytes::new()), self));
                }
                let end = (self.next + BATCH).min(self.points.len());
                let batch = &self.points[self.next..end];
                let rows = match row::read(&self.pool, &self.snap, &self.config, &self.base, batch)
                    .await
                {
                    Ok(rows) => rows,
                    Err(e) => {
                        tracing::error!(error = %e, "export: reading a batch failed; body cut");
                        self.stage = Stage::Done;
                        return Some((Err(std::io::Error::other("export failed")), self));
                    }
                };
                let first = self.next == 0;
                self.next = end;
                let chunk = match self.format {
                    Format::GeoJson => geojson::features(&rows, first),
                    Format::Csv => csv::rows(&rows),
                };
                Some((Ok(Bytes::from(chunk)), self))
            }
            Stage::Tail => {
                self.stage = Stage::Done;
                let tail = match self.format {
                    Format::GeoJson => geojson::tail(),
                    Format::Csv => String::new(),
                };
                Some((Ok(Bytes::from(tail)), self))
            }
            Stage::Done => None,
        }
    }
}

/// A point of the export (re-exported for the writers).
pub(crate) type Point = ExportPoint;
