//! `GET /api/clusters`: the GeoJSON clusters of the map, answered from the in-memory index
//! (docs/map.md), with an ETag from the served snapshot's content fingerprint and the
//! normalised query.

use super::cache::{self, CACHE_CONTROL};
use super::map_state::MapState;
use super::params;
use crate::error::{ApiError, ErrorBody};
use crate::extract::Query;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bandmap_index::map::ClusterQuery;
use serde::Deserialize;
use std::hash::{Hash, Hasher};
use utoipa::IntoParams;

/// Query of `GET /api/clusters`.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ClustersParams {
    /// `minLon,minLat,maxLon,maxLat` in degrees (default: the whole world).
    #[param(value_type = Option<String>, example = "-10,35,30,60")]
    bbox: Option<String>,
    /// Zoom 0–20 (default 3); points are clustered up to 16, single from 17.
    #[param(value_type = Option<i32>, minimum = 0, maximum = 20)]
    zoom: Option<String>,
    /// Country name or ISO2 code (case-insensitive equality); over 100 characters → 400.
    country: Option<String>,
    /// Band status (case-insensitive equality); over 100 characters → 400.
    status: Option<String>,
    /// Genre (case-insensitive substring); over 100 characters → 400.
    genre: Option<String>,
    /// Lowest formation year.
    #[param(value_type = Option<i32>)]
    year_min: Option<String>,
    /// Highest formation year.
    #[param(value_type = Option<i32>)]
    year_max: Option<String>,
    /// Genre families to keep, comma-separated, among `black`, `death`, `doom`, `thrash`,
    /// `heavy` (heavy/power), `progressive`, `folk` (folk/pagan), `gothic`
    /// (gothic/symphonic), `grind` (grind/core), `other` (docs/map.md); an unknown name → 400.
    #[param(value_type = Option<String>, example = "black,doom")]
    family: Option<String>,
    /// `families`: each cluster gets `"families": {"black": N, …}` (its points per genre
    /// family, non-zero ones) and each single point `"family"`. Absent: the answer is
    /// exactly the CONTRACT shape. Any other value → 400.
    #[param(value_type = Option<String>, example = "families")]
    breakdown: Option<String>,
}

/// What `GET /api/clusters` answers: the query and whether the families are broken down.
#[derive(Debug, Clone, PartialEq)]
pub struct ClustersRequest {
    /// The cluster query.
    pub query: ClusterQuery,
    /// `breakdown=families`.
    pub breakdown: bool,
}

impl ClustersParams {
    /// Validates the parameters into a query.
    pub fn parse(&self) -> Result<ClustersRequest, ApiError> {
        let filter = params::filter(params::RawFilter {
            genre: self.genre.as_deref(),
            country: self.country.as_deref(),
            status: self.status.as_deref(),
            year_min: self.year_min.as_deref(),
            year_max: self.year_max.as_deref(),
            family: self.family.as_deref(),
        })?;
        let breakdown = match self.breakdown.as_deref().map(str::trim) {
            None | Some("") => false,
            Some("families") => true,
            Some(_) => {
                return Err(ApiError::bad_request(
                    "breakdown must be `families` (or absent)",
                ));
            }
        };
        let query = ClusterQuery {
            bbox: params::bbox(self.bbox.as_deref())?,
            zoom: params::zoom(self.zoom.as_deref())?,
            filter,
        };
        Ok(ClustersRequest { query, breakdown })
    }
}

/// Map clusters and points in a bounding box.
#[utoipa::path(get, path = "/clusters", tag = "public", params(ClustersParams),
    responses(
        (status = 200, description = "GeoJSON FeatureCollection (clusters: cluster, count, expansion_zoom, and with breakdown=families a families object {family: count}; points: cluster=false and the band fields, and with breakdown=families their family)", content_type = "application/geo+json", body = Object),
        (status = 304, description = "not modified (If-None-Match)"),
        (status = 400, description = "malformed parameter", body = ErrorBody)))]
pub async fn clusters(
    State(map): State<MapState>,
    headers: HeaderMap,
    Query(p): Query<ClustersParams>,
) -> Result<Response, ApiError> {
    let ClustersRequest { query, breakdown } = p.parse()?;
    let snap = map.snapshot().await.map_err(ApiError::internal)?;
    let etag = etag(snap.fingerprint, &query, breakdown);
    if cache::not_modified(&headers, &etag) {
        return Ok(cache::not_modified_response(&etag));
    }
    // Shared, not copied: a repeated view is served from the snapshot's kept bodies.
    let body = axum::body::Bytes::from_owner(snap.geojson_with(&query, breakdown));
    let mut res = (StatusCode::OK, body).into_response();
    let h = res.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/geo+json"),
    );
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(CACHE_CONTROL),
    );
    if let Ok(v) = HeaderValue::from_str(&etag) {
        h.insert(header::ETAG, v);
    }
    Ok(res)
}

/// Weak ETag of a query against the content of a snapshot. Not the data version: a
/// snapshot can be rebuilt with other rows under the same counter value (docs/map.md).
fn etag(fingerprint: u64, q: &ClusterQuery, breakdown: bool) -> String {
    let mut h = std::hash::DefaultHasher::new();
    // Only when asked for, so the ETags of plain answers stay what they were.
    if breakdown {
        "breakdown=families".hash(&mut h);
    }
    q.zoom.hash(&mut h);
    for v in [
        q.bbox.min_lon,
        q.bbox.min_lat,
        q.bbox.max_lon,
        q.bbox.max_lat,
    ] {
        v.to_bits().hash(&mut h);
    }
    q.filter.hash(&mut h);
    format!("W/\"m{fingerprint:016x}-{:016x}\"", h.finish())
}
