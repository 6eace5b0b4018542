//! The JSON shapes of the flow endpoints (documented in the OpenAPI document from these
//! types).

use bandmap_index::map::Family;
use bandmap_index::map::family::Mix;
use bandmap_index::map::flows::{self, FlowAnswer, FlowBands};
use serde::Serialize;
use serde::ser::SerializeMap;
use utoipa::ToSchema;

/// Answer of `GET /api/flows`.
#[derive(Debug, Serialize, ToSchema)]
pub struct FlowsBody<'a> {
    /// Grid level of the cells (the clusters' at this bbox and zoom).
    pub level: u32,
    /// Moves of every flow of the view, listed or not: the listed counts plus `other.count`.
    pub total: u32,
    /// The largest flows, largest first (ties by cell).
    pub flows: Vec<FlowItem>,
    /// The flows the limit left out, summed.
    pub other: OtherItem,
    /// The ends of the listed flows (`from`/`to` index this list).
    pub places: Vec<PlaceItem<'a>>,
}

/// One flow: moves from one place to another.
#[derive(Debug, Serialize, ToSchema)]
pub struct FlowItem {
    /// Index of the start place in `places`.
    pub from: u32,
    /// Index of the end place in `places`.
    pub to: u32,
    /// Moves: pairs of consecutive placed steps of a band, from one place to the other.
    pub count: u32,
    /// Moves per genre family of the band (non-zero families, in the legend's order).
    #[schema(value_type = Object, example = json!({"black": 2, "death": 1}))]
    pub families: Families,
}

/// The flows left out by `limit`.
#[derive(Debug, Serialize, ToSchema)]
pub struct OtherItem {
    /// How many flows.
    pub flows: u32,
    /// Their moves.
    pub count: u32,
}

/// One end of the listed flows: where the clusters draw its cell.
#[derive(Debug, Serialize, ToSchema)]
pub struct PlaceItem<'a> {
    /// Cell coordinates at `level` (for `/api/flows/bands`).
    pub cell: [u32; 2],
    /// Longitude (the cluster's position: mean of its kept points in the view).
    pub lon: f64,
    /// Latitude.
    pub lat: f64,
    /// Kept points at that position (the cluster's count when it is in the view).
    pub points: u32,
    /// The town's name when the cell holds one town, else null.
    pub label: Option<&'a str>,
    /// The name of the cell's largest town.
    pub main: &'a str,
    /// Moves of the view's flows (listed or not) ending here.
    pub incoming: u32,
    /// Moves starting here.
    pub outgoing: u32,
}

/// Counts per genre family, non-zero ones, in [`Family::ALL`] order.
#[derive(Debug)]
pub struct Families(pub Mix);

impl Serialize for Families {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        for f in Family::ALL {
            let n = self.0[f as usize];
            if n > 0 {
                map.serialize_entry(f.name(), &n)?;
            }
        }
        map.end()
    }
}

impl<'a> FlowsBody<'a> {
    /// The body of an answer.
    pub fn of(a: &FlowAnswer<'a>) -> FlowsBody<'a> {
        FlowsBody {
            level: a.level,
            total: a.total,
            flows: a
                .flows
                .iter()
                .map(|f| FlowItem {
                    from: f.from,
                    to: f.to,
                    count: f.count,
                    families: Families(f.families),
                })
                .collect(),
            other: OtherItem {
                flows: a.other.flows,
                count: a.other.count,
            },
            places: a
                .places
                .iter()
                .map(|p| {
                    let (x, y) = flows::aggregate::cell_xy(p.key);
                    PlaceItem {
                        cell: [x, y],
                        lon: p.lon,
                        lat: p.lat,
                        points: p.points,
                        label: p.label,
                        main: p.main,
                        incoming: p.incoming,
                        outgoing: p.outgoing,
                    }
                })
                .collect(),
        }
    }
}

/// Answer of `GET /api/flows/bands`.
#[derive(Debug, Serialize, ToSchema)]
pub struct FlowBandsBody<'a> {
    /// Moves of the flow (its `count` in `/api/flows`).
    pub count: u32,
    /// Distinct bands.
    pub bands: u32,
    /// The first 200 bands by name.
    pub items: Vec<FlowBandItem<'a>>,
}

/// One band of a flow.
#[derive(Debug, Serialize, ToSchema)]
pub struct FlowBandItem<'a> {
    /// Upstream id (`/api/bands/{ma_id}` opens its card).
    pub ma_id: i64,
    /// Name.
    pub name: &'a str,
    /// Genre.
    pub genre: Option<&'a str>,
    /// Genre family.
    pub family: &'static str,
    /// Formation year.
    pub formed_year: Option<i32>,
    /// Its moves in this flow.
    pub moves: u32,
}

impl<'a> FlowBandsBody<'a> {
    /// The body of a band list.
    pub fn of(b: &FlowBands<'a>) -> FlowBandsBody<'a> {
        FlowBandsBody {
            count: b.count,
            bands: b.bands,
            items: b
                .items
                .iter()
                .map(|i| FlowBandItem {
                    ma_id: i.ma_id,
                    name: i.name,
                    genre: i.genre,
                    family: i.family.name(),
                    formed_year: i.formed_year,
                    moves: i.moves,
                })
                .collect(),
        }
    }
}
