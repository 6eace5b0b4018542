//! `GET /api/clusters`: the GeoJSON clusters of the map, answered from the in-memory index
//! (docs/map.md), with an ETag from the served snapshot's content fingerprint and the
//! normalised query.

pub mod memo;

use super::cache::{self, Asked};
use super::map_state::MapState;
use super::params::{self, View};
use crate::error::{ApiError, ErrorBody};
use crate::extract::parse_query;
use crate::param::{self, Breakdown};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::Uri;
use axum::response::Response;
use bandmap_index::map::ClusterQuery;
use serde::Deserialize;
use utoipa::IntoParams;

/// The media type of the answers.
const GEOJSON: &str = "application/geo+json";

/// Query of `GET /api/clusters`: the view, and the breakdown.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ClustersParams {
    /// The box, zoom and filters.
    #[serde(flatten)]
    #[param(ignore)]
    view: params::ViewParams,
    /// `families` (any case): each cluster gets `"families": {"black": N, …}` (its points
    /// per genre family, non-zero ones) and each single point `"family"`. Absent: the
    /// answer is exactly the CONTRACT shape. Any other value → 400.
    #[serde(default, deserialize_with = "param::breakdown")]
    #[param(inline, example = "families")]
    breakdown: Option<Breakdown>,
}

impl ClustersParams {
    /// The view, and whether the families are broken down.
    pub fn request(&self) -> (View, bool) {
        (self.view.view(), self.breakdown.is_some())
    }
}

/// Map clusters and points in a bounding box.
#[utoipa::path(get, path = "/api/clusters", tag = "public",
    params(params::ViewParams, params::MapFilterParams, ClustersParams),
    responses(
        (status = 200, description = "GeoJSON FeatureCollection (clusters: cluster, count, expansion_zoom, and with breakdown=families a families object {family: count}; points: cluster=false and the band fields, and with breakdown=families their family)", content_type = "application/geo+json", body = Object),
        (status = 304, description = "not modified (If-None-Match)"),
        (status = 400, description = "malformed parameter", body = ErrorBody)))]
pub async fn clusters(
    State(map): State<MapState>,
    asked: Asked,
    uri: Uri,
) -> Result<Response, ApiError> {
    let query = uri.query().unwrap_or("");
    // A malformed query is refused before the snapshot is looked at (a 400, never a 500
    // of a map that cannot load); a query string seen before is not parsed again.
    let found = map.cluster_views().lookup(query, || {
        parse_query::<ClustersParams>(&uri).map(|p| p.request())
    })?;
    let snap = map.snapshot().await.map_err(ApiError::internal)?;
    let parsed = map.cluster_views().tag(query, found, snap.fingerprint);
    let etag = parsed.etag.as_str();
    if asked.holds(etag) {
        return Ok(cache::not_modified_response(etag));
    }
    // Shared, not copied: a repeated view is served from the snapshot's kept bodies, and
    // in the client's coding from the compressed ones kept by ETag.
    let answer = map.encoded().answer_ok(etag, asked.coding, || {
        let query = ClusterQuery {
            bbox: parsed.view.bbox,
            zoom: parsed.view.zoom,
            filter: parsed.view.filter.clone(),
        };
        Bytes::from_owner(snap.geojson_with(&query, parsed.breakdown))
    });
    Ok(cache::encoded_response(GEOJSON, etag, answer))
}
