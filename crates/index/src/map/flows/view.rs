//! The view test of a flow query: whether an end lies in the bbox. Decided from the end's
//! finest cell when that cell is two cells or more away from the bbox's border cells (the
//! projection's float rounding can move a point by one cell at most at a border), else
//! from its coordinates — so the scattered ends of the segments are rarely read.

use crate::map::grid::{self, MAX_LEVEL};
use crate::map::query::Bbox;
use crate::map::snapshot::Points;

/// A bbox and its finest-level cell range.
#[derive(Debug, Clone, Copy)]
pub struct View {
    bbox: Bbox,
    world: bool,
    x0: i64,
    y0: i64,
    x1: i64,
    y1: i64,
}

impl View {
    /// The test of `bbox`.
    pub fn new(bbox: &Bbox) -> View {
        let (x0, y0, x1, y1) = bbox.cells(MAX_LEVEL);
        View {
            bbox: *bbox,
            world: bbox.min_lon <= -180.0
                && bbox.min_lat <= -90.0
                && bbox.max_lon >= 180.0
                && bbox.max_lat >= 90.0,
            x0: x0.into(),
            y0: y0.into(),
            x1: x1.into(),
            y1: y1.into(),
        }
    }

    /// Whether point `i` lies inside (its coordinates).
    #[inline]
    pub fn contains(&self, points: &Points, i: usize) -> bool {
        self.world || self.bbox.contains(points.lon[i], points.lat[i])
    }

    /// Whether point `i`, of finest Morton code `m`, lies inside: from its cell when far
    /// from the border, from its coordinates otherwise.
    #[inline]
    pub fn contains_coded(&self, points: &Points, i: usize, m: u64) -> bool {
        if self.world {
            return true;
        }
        let (x, y) = grid::decode(m);
        let (x, y) = (i64::from(x), i64::from(y));
        if x >= self.x0 + 2 && x <= self.x1 - 2 && y >= self.y0 + 2 && y <= self.y1 - 2 {
            return true;
        }
        if x <= self.x0 - 2 || x >= self.x1 + 2 || y <= self.y0 - 2 || y >= self.y1 + 2 {
            return false;
        }
        self.bbox.contains(points.lon[i], points.lat[i])
    }
}
