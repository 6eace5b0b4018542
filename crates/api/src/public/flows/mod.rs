//! `GET /api/flows` and `GET /api/flows/bands`: where the bands moved, between the cells
//! `/api/clusters` draws, answered from the in-memory map index (docs/map.md "Flows").

pub mod body;
pub mod params;

use super::cache::{self, Asked};
use super::map_state::MapState;
use super::params::{MapFilterParams, ViewParams};
use crate::error::{ApiError, ErrorBody};
use crate::extract::Query;
use axum::body::Bytes;
use axum::extract::State;
use axum::response::Response;
use body::{FlowBandsBody, FlowsBody};
use params::{FlowBandsParams, FlowsParams};

/// The media type of the answers.
const JSON: &str = "application/json";

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
    asked: Asked,
    Query(p): Query<FlowsParams>,
) -> Result<Response, ApiError> {
    let (view, query) = p.parse();
    let snap = map.snapshot().await.map_err(ApiError::internal)?;
    let etag = view.etag('f', snap.fingerprint, ("flows", query.limit));
    if asked.holds(&etag) {
        return Ok(cache::not_modified_response(&etag));
    }
    let answer = map.encoded().answer(&etag, asked.coding, || {
        snap.flows_body(&query, |answer| serde_json::to_vec(&FlowsBody::of(answer)))
            .map(Bytes::from_owner)
    });
    let answer = answer.map_err(ApiError::internal)?;
    Ok(cache::encoded_response(JSON, &etag, answer))
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
    asked: Asked,
    Query(p): Query<FlowBandsParams>,
) -> Result<Response, ApiError> {
    let (view, params::FlowRequest { query, from, to }) = p.parse()?;
    let snap = map.snapshot().await.map_err(ApiError::internal)?;
    let etag = view.etag('f', snap.fingerprint, ("flow-bands", query.limit, from, to));
    if asked.holds(&etag) {
        return Ok(cache::not_modified_response(&etag));
    }
    let answer = map.encoded().answer(&etag, asked.coding, || {
        serde_json::to_vec(&FlowBandsBody::of(&snap.flow_bands(&query, from, to))).map(Bytes::from)
    });
    let answer = answer.map_err(ApiError::internal)?;
    Ok(cache::encoded_response(JSON, &etag, answer))
}
