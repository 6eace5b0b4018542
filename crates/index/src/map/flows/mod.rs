//! Flows between places (docs/map.md "Flows"): each band's consecutive placed steps, in
//! path order, counted between the cells `/api/clusters` draws at a zoom. The segments are
//! listed once per snapshot ([`paths`]); a query aggregates them by cell pair
//! ([`aggregate`]), keeps the largest ([`FlowAnswer`]), places their ends on the clusters
//! ([`places`]) and lists the bands of one pair ([`bands`]).

pub mod aggregate;
pub mod bands;
pub mod bodies;
pub mod pair_hash;
pub mod paths;
pub mod places;
pub mod view;

#[cfg(test)]
mod tests;

pub use aggregate::{Flow, FlowAnswer, FlowQuery, Other, PairCount, flow_level};
pub use bands::{FlowBand, FlowBands};
pub use places::Place;

use crate::map::groups::Groups;
use crate::map::snapshot::Points;

/// Default number of flows answered.
pub const DEFAULT_LIMIT: usize = 50;
/// Most flows one answer may list.
pub const MAX_LIMIT: usize = 200;

/// What a snapshot keeps for flows: its bands' path segments and recent answers.
#[derive(Debug, Default)]
pub struct FlowIndex {
    /// Every segment of every band's path.
    pub paths: paths::Paths,
    bodies: bodies::FlowBodies,
}

impl FlowIndex {
    /// Lists the segments of the bands' paths (`path_step`: the parser's step of each
    /// point).
    pub fn build(points: &Points, band_points: &Groups, path_step: &[i32]) -> FlowIndex {
        FlowIndex {
            paths: paths::Paths::build(points, band_points, path_step),
            bodies: bodies::FlowBodies::default(),
        }
    }

    /// Drops the kept answers (a rebuild is starting).
    pub fn clear_bodies(&self) {
        self.bodies.clear();
    }

    /// The kept answers.
    pub fn bodies(&self) -> &bodies::FlowBodies {
        &self.bodies
    }

    /// Approximate bytes held (segments; kept answers are bounded apart).
    pub fn bytes(&self) -> usize {
        self.paths.bytes()
    }
}
