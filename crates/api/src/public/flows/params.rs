//! The query parameters of the flow endpoints: the clusters' view (bbox, zoom, filters,
//! the same types and the same 400s) and `limit`; `from`/`to` name one flow.

use crate::error::ApiError;
use crate::param::{self, CellText, FlowLimit};
use crate::public::params::{View, ViewParams};
use bandmap_index::map::flows::{FlowQuery, MAX_LIMIT};
use serde::Deserialize;
use utoipa::IntoParams;

/// Query of `GET /api/flows`: the view and `limit`.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FlowsParams {
    /// The box, zoom and filters.
    #[serde(flatten)]
    #[param(ignore)]
    view: ViewParams,
    /// Flows listed, 1–200 (default 50), the largest first; the rest are summed in `other`.
    #[serde(default, deserialize_with = "param::limit")]
    #[param(inline)]
    limit: Option<FlowLimit>,
}

/// Query of `GET /api/flows/bands`: the view of the `/api/flows` answer the flow came
/// from, and its two places.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct FlowBandsParams {
    /// The box, zoom and filters, as `/api/flows`.
    #[serde(flatten)]
    #[param(ignore)]
    view: ViewParams,
    /// The start place's `cell` (`x,y`) in the `/api/flows` answer. Required.
    #[serde(default, deserialize_with = "param::from")]
    #[param(inline, required = true, example = "545,297")]
    from: Option<CellText>,
    /// The end place's `cell` (`x,y`). Required.
    #[serde(default, deserialize_with = "param::to")]
    #[param(inline, required = true, example = "541,305")]
    to: Option<CellText>,
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

fn query(view: View, limit: usize) -> FlowQuery {
    FlowQuery {
        bbox: view.bbox,
        zoom: view.zoom,
        filter: view.filter,
        limit,
    }
}

impl FlowsParams {
    /// The view and the flow query.
    pub fn parse(&self) -> (View, FlowQuery) {
        let view = self.view.view();
        let limit = self.limit.unwrap_or_default().0;
        (view.clone(), query(view, limit))
    }
}

impl FlowBandsParams {
    /// The view, its query (listing at most 200 bands) and the two cells, checked at the
    /// view's level.
    pub fn parse(&self) -> Result<(View, FlowRequest), ApiError> {
        let view = self.view.view();
        let query = query(view.clone(), MAX_LIMIT);
        let level = bandmap_index::map::flows::flow_level(&query.bbox, query.zoom);
        let from = CellText::at_level("from", self.from, level)?;
        let to = CellText::at_level("to", self.to, level)?;
        Ok((view, FlowRequest { query, from, to }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flows(q: &str) -> Result<FlowQuery, String> {
        let uri: axum::http::Uri = format!("/x?{q}").parse().unwrap();
        axum::extract::Query::<FlowsParams>::try_from_uri(&uri)
            .map(|p| p.0.parse().1)
            .map_err(|e| e.body_text())
    }

    #[test]
    fn limit_rules() {
        assert_eq!(flows("").unwrap().limit, 50);
        assert_eq!(flows("limit=%20").unwrap().limit, 50);
        assert_eq!(flows("limit=200").unwrap().limit, 200);
        for bad in ["0", "201", "-1", "x", "2.5"] {
            assert!(flows(&format!("limit={bad}")).is_err(), "{bad}");
        }
    }

    #[test]
    fn cell_rules() {
        let cells = |q: &str| {
            let uri: axum::http::Uri = format!("/x?zoom=2&{q}").parse().unwrap();
            axum::extract::Query::<FlowBandsParams>::try_from_uri(&uri)
                .unwrap()
                .0
                .parse()
                .map(|(_, r)| (r.from, r.to))
        };
        let level = bandmap_index::map::flows::flow_level(&bandmap_index::map::Bbox::WORLD, 2);
        let side = 1u32 << level;
        assert_eq!(cells("from=0,%201&to=1,0").unwrap(), ((0, 1), (1, 0)));
        let outside = format!("from={side},0");
        for bad in [
            "",
            "from=",
            "from=3",
            outside.as_str(),
            "from=a,1",
            "from=-1,2",
        ] {
            assert!(cells(&format!("{bad}&to=0,0")).is_err(), "{bad:?}");
        }
    }
}
