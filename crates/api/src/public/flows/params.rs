//! The query parameters of the flow endpoints: the clusters' (bbox, zoom, filters, with
//! the same parsers and the same 400s) and `limit`; `from`/`to` name one flow.

use crate::error::ApiError;
use crate::public::params;
use bandmap_index::map::flows::{DEFAULT_LIMIT, FlowQuery, MAX_LIMIT};
use serde::Deserialize;
use utoipa::IntoParams;

/// Query of `GET /api/flows`.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FlowsParams {
    /// `minLon,minLat,maxLon,maxLat` in degrees (default: the whole world); a flow counts
    /// when either end is inside.
    #[param(value_type = Option<String>, example = "-10,35,30,60")]
    bbox: Option<String>,
    /// Zoom 0–20 (default 3): the cells are those of `/api/clusters` at this zoom and bbox.
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
    /// Genre families to keep, comma-separated (as `/api/clusters`); an unknown name → 400.
    #[param(value_type = Option<String>, example = "black,doom")]
    family: Option<String>,
    /// Flows listed, 1–200 (default 50), the largest first; the rest are summed in `other`.
    #[param(value_type = Option<i32>, minimum = 1, maximum = 200)]
    limit: Option<String>,
}

/// Query of `GET /api/flows/bands`: the view and filters of the `/api/flows` answer the
/// flow came from, and its two places.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FlowBandsParams {
    /// As `/api/flows`.
    #[param(value_type = Option<String>, example = "-10,35,30,60")]
    bbox: Option<String>,
    /// As `/api/flows`.
    #[param(value_type = Option<i32>, minimum = 0, maximum = 20)]
    zoom: Option<String>,
    /// As `/api/flows`.
    country: Option<String>,
    /// As `/api/flows`.
    status: Option<String>,
    /// As `/api/flows`.
    genre: Option<String>,
    /// As `/api/flows`.
    #[param(value_type = Option<i32>)]
    year_min: Option<String>,
    /// As `/api/flows`.
    #[param(value_type = Option<i32>)]
    year_max: Option<String>,
    /// As `/api/flows`.
    #[param(value_type = Option<String>)]
    family: Option<String>,
    /// The start place's `cell` (`x,y`) in the `/api/flows` answer. Required.
    #[param(value_type = String, pattern = r"^[0-9]{1,6},[0-9]{1,6}$", example = "545,297")]
    from: Option<String>,
    /// The end place's `cell` (`x,y`). Required.
    #[param(value_type = String, pattern = r"^[0-9]{1,6},[0-9]{1,6}$", example = "541,305")]
    to: Option<String>,
}

/// One flow asked for: the view's query and the cells of its two places.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowRequest {
    /// The view and filters (listing at most 200 bands).
    pub query: FlowQuery,
    /// Start cell (level coordinates).
    pub from: (u32, u32),
    /// End cell.
    pub to: (u32, u32),
}

/// The parts shared by both endpoints.
struct View<'a> {
    bbox: Option<&'a str>,
    zoom: Option<&'a str>,
    filter: params::RawFilter<'a>,
}

impl View<'_> {
    fn query(&self, limit: usize) -> Result<FlowQuery, ApiError> {
        let filter = params::filter(self.filter)?;
        Ok(FlowQuery {
            bbox: params::bbox(self.bbox)?,
            zoom: params::zoom(self.zoom)?,
            filter,
            limit,
        })
    }
}

impl FlowsParams {
    /// Validates the parameters into a flow query.
    pub fn parse(&self) -> Result<FlowQuery, ApiError> {
        View {
            bbox: self.bbox.as_deref(),
            zoom: self.zoom.as_deref(),
            filter: params::RawFilter {
                genre: self.genre.as_deref(),
                country: self.country.as_deref(),
                status: self.status.as_deref(),
                year_min: self.year_min.as_deref(),
                year_max: self.year_max.as_deref(),
                family: self.family.as_deref(),
            },
        }
        .query(limit(self.limit.as_deref())?)
    }
}

impl FlowBandsParams {
    /// Validates the parameters into the view's query (listing at most 200 bands) and the
    /// two cells.
    pub fn parse(&self) -> Result<FlowRequest, ApiError> {
        let query = View {
            bbox: self.bbox.as_deref(),
            zoom: self.zoom.as_deref(),
            filter: params::RawFilter {
                genre: self.genre.as_deref(),
                country: self.country.as_deref(),
                status: self.status.as_deref(),
                year_min: self.year_min.as_deref(),
                year_max: self.year_max.as_deref(),
                family: self.family.as_deref(),
            },
        }
        .query(MAX_LIMIT)?;
        let level = bandmap_index::map::flows::flow_level(&query.bbox, query.zoom);
        let from = cell("from", self.from.as_deref(), level)?;
        let to = cell("to", self.to.as_deref(), level)?;
        Ok(FlowRequest { query, from, to })
    }
}

fn present(v: Option<&str>) -> Option<&str> {
    v.map(str::trim).filter(|s| !s.is_empty())
}

/// `limit`: integer 1–200, default 50.
pub fn limit(raw: Option<&str>) -> Result<usize, ApiError> {
    match present(raw) {
        None => Ok(DEFAULT_LIMIT),
        Some(s) => match s.parse::<usize>() {
            Ok(n) if (1..=MAX_LIMIT).contains(&n) => Ok(n),
            _ => Err(ApiError::bad_request(format!(
                "limit must be an integer from 1 to {MAX_LIMIT}"
            ))),
        },
    }
}

/// A place's `cell`: `x,y`, two integers below `2^level`.
pub fn cell(name: &str, raw: Option<&str>, level: u32) -> Result<(u32, u32), ApiError> {
    let bad = || {
        ApiError::bad_request(format!(
            "{name} must be a place's cell `x,y` at this bbox and zoom (integers below {})",
            1u64 << level
        ))
    };
    let raw = present(raw).ok_or_else(bad)?;
    let (x, y) = raw.split_once(',').ok_or_else(bad)?;
    let side = 1u64 << level;
    let coord = |v: &str| {
        v.trim()
            .parse::<u32>()
            .ok()
            .filter(|&c| u64::from(c) < side)
            .ok_or_else(bad)
    };
    Ok((coord(x)?, coord(y)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limit_rules() {
        assert_eq!(limit(None).unwrap(), 50);
        assert_eq!(limit(Some(" ")).unwrap(), 50);
        assert_eq!(limit(Some("200")).unwrap(), 200);
        for bad in ["0", "201", "-1", "x", "2.5"] {
            assert!(limit(Some(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn cell_rules() {
        assert_eq!(cell("from", Some("3, 4"), 5).unwrap(), (3, 4));
        for bad in [
            None,
            Some(""),
            Some("3"),
            Some("3,32"),
            Some("a,1"),
            Some("-1,2"),
        ] {
            assert!(cell("from", bad, 5).is_err(), "{bad:?}");
        }
    }
}
