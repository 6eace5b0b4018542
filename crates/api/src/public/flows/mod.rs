//! `GET /api/flows` and `GET /api/flows/bands`: where the bands moved, between the cells
//! `/api/clusters` draws, answered from the in-memory map index (docs/map.md "Flows").

pub mod body;
pub mod params;

use super::cache::{self, CACHE_CONTROL};
use super::map_state::MapState;
use super::params::{MapFilterParams, ViewParams};
use crate::error::{ApiError, ErrorBody};
use crate::extract::Query;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use body::{FlowBandsBody, FlowsBody};
use params::{FlowBandsParams, FlowsParams};

/// Flows between places: consecutive placed steps of the bands, counted between clusters.
/// A flow counts when either end is inside the box; the cells are those of
/// `/api/clusters` at this zoom and box.
#[utoipa::path(get, path = "/flows", tag = "public",
    params(ViewParams, MapFilterParams, FlowsParams),
    responses(
        (status = 200, description = "The largest flows of the view (largest first), what the limit left out, and the places at their ends with their incoming/outgoing totals", body = FlowsBody),
        (status = 304, description = "not modified (If-None-Match)"),
        (status = 400, description = "malformed parameter", body = ErrorBody),
        (status = 429, description = "too many requests from this client address", body = ErrorBody)))]
pub async fn flows(
    State(map): State<MapState>,
    headers: HeaderMap,
    Query(p): Query<FlowsParams>,
) -> Result<Response, ApiError> {
    let (view, query) = p.parse();
    let snap = map.snapshot().await.map_err(ApiError::internal)?;
    let etag = view.etag('f', snap.fingerprint, ("flows", query.limit));
    if cache::not_modified(&headers, &etag) {
        return Ok(cache::not_modified_response(&etag));
    }
    let body = snap
        .flows_body(&query, |answer| serde_json::to_vec(&FlowsBody::of(answer)))
        .map_err(ApiError::internal)?;
    Ok(json(axum::body::Bytes::from_owner(body), &etag))
}

/// The bands of one flow (a click on it), by name, at most 200.
#[utoipa::path(get, path = "/flows/bands", tag = "public",
    params(ViewParams, MapFilterParams, FlowBandsParams),
    responses(
        (status = 200, description = "The bands with a move from one place to the other in the view", body = FlowBandsBody),
        (status = 304, description = "not modified (If-None-Match)"),
        (status = 400, description = "malformed parameter", body = ErrorBody),
        (status = 429, description = "too many requests from this client address", body = ErrorBody)))]
pub async fn flow_bands(
    State(map): State<MapState>,
    headers: HeaderMap,
    Query(p): Query<FlowBandsParams>,
) -> Result<Response, ApiError> {
    let (view, params::FlowRequest { query, from, to }) = p.parse()?;
    let snap = map.snapshot().await.map_err(ApiError::internal)?;
    let etag = view.etag('f', snap.fingerprint, ("flow-bands", query.limit, from, to));
    if cache::not_modified(&headers, &etag) {
        return Ok(cache::not_modified_response(&etag));
    }
    let answer = snap.flow_bands(&query, from, to);
    let body = serde_json::to_vec(&FlowBandsBody::of(&answer)).map_err(ApiError::internal)?;
    Ok(json(axum::body::Bytes::from(body), &etag))
}

fn json(body: axum::body::Bytes, etag: &str) -> Response {
    let mut res = (StatusCode::OK, body).into_response();
    let h = res.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(CACHE_CONTROL),
    );
    if let Ok(v) = HeaderValue::from_str(etag) {
        h.insert(header::ETAG, v);
    }
    res
}
