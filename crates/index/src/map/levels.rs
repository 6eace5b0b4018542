//! Cluster levels: for one selection of points (all, or those matching a filter), the
//! non-empty grid cells of a level with their precomputed aggregates, and the aggregation of
//! a run of points into cells (used for cells cut by the bbox and for fine levels).

use crate::map::family::{COUNT, Mix, MixIndex};
use crate::map::grid;
use crate::map::snapshot::Points;

/// Finest level kept precomputed (zoom 10); finer levels are aggregated per request from
/// the points of the level-`PRE_LEVEL` cells the bbox touches.
pub const PRE_LEVEL: u32 = 12;

/// Which points a level is built over: positions `0..len` map to point indexes.
#[derive(Debug, Clone, Copy)]
pub enum Selection<'a> {
    /// Every point (position = index).
    All(usize),
    /// The listed point indexes, ascending.
    List(&'a [u32]),
}

impl Selection<'_> {
    /// Number of positions.
    pub fn len(&self) -> usize {
        match self {
            Selection::All(n) => *n,
            Selection::List(l) => l.len(),
        }
    }

    /// Whether there is no position.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Point index at a position.
    #[inline]
    pub fn at(&self, pos: usize) -> usize {
        match self {
            Selection::All(_) => pos,
            Selection::List(l) => l[pos] as usize,
        }
    }
}

/// Aggregate of the selected points of one cell.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Agg {
    /// Cell key at the level.
    pub key: u64,
    /// Number of points.
    pub count: u32,
    /// Index of the first point (the one shown when `count == 1`).
    pub first: u32,
    /// Finest Morton code of the first and last point (for the expansion zoom).
    pub first_m: u64,
    /// See `first_m`.
    pub last_m: u64,
    /// Sum of longitudes.
    pub sum_lon: f64,
    /// Sum of latitudes.
    pub sum_lat: f64,
}

/// A non-empty cell of a precomputed level.
#[derive(Debug, Clone, Copy)]
pub struct Cell {
    /// The aggregate of all the cell's selected points.
    pub agg: Agg,
    /// Its positions in the selection: `start..end`.
    pub start: u32,
    /// See `start`.
    pub end: u32,
    /// Bounding box of its points: min lon, min lat, max lon, max lat.
    pub bounds: [f64; 4],
}

/// The non-empty cells of one level, sorted by key.
#[derive(Debug, Default)]
pub struct Level {
    /// Cells.
    pub cells: Vec<Cell>,
}

/// Builds a level over a selection in one pass (the selection is Morton-sorted, so a cell's
/// points are contiguous).
pub fn build_level(points: &Points, sel: Selection<'_>, level: u32) -> Level {
    let mut cells: Vec<Cell> = Vec::new();
    for pos in 0..sel.len() {
        let i = sel.at(pos);
        let m = points.morton[i];
        let key = grid::key_at(m, level);
        let (lon, lat) = (points.lon[i], points.lat[i]);
        match cells.last_mut() {
            Some(c) if c.agg.key == key => {
                c.agg.count += 1;
                c.agg.last_m = m;
                c.agg.sum_lon += lon;
                c.agg.sum_lat += lat;
                c.end = pos as u32 + 1;
                c.bounds = [
                    c.bounds[0].min(lon),
                    c.bounds[1].min(lat),
                    c.bounds[2].max(lon),
                    c.bounds[3].max(lat),
                ];
            }
            _ => cells.push(Cell {
                agg: Agg {
                    key,
                    count: 1,
                    first: i as u32,
                    first_m: m,
                    last_m: m,
                    sum_lon: lon,
                    sum_lat: lat,
                },
                start: pos as u32,
                end: pos as u32 + 1,
                bounds: [lon, lat, lon, lat],
            }),
        }
    }
    Level { cells }
}

/// Aggregates of one answer, in the order found, and — when the family breakdown is asked
/// for — the family counts of each (same index).
#[derive(Debug, Default)]
pub struct Aggs {
    /// Cell aggregates.
    pub aggs: Vec<Agg>,
    /// Family counts of each aggregate; `None` = not asked for.
    pub mixes: Option<Vec<Mix>>,
}

impl Aggs {
    /// An empty set; `breakdown` = keep the family counts.
    pub fn new(breakdown: bool) -> Aggs {
        Aggs {
            aggs: Vec::new(),
            mixes: breakdown.then(Vec::new),
        }
    }

    /// Adds a precomputed aggregate; `mix` gives its family counts (called only when they
    /// are kept).
    pub fn push_cell(&mut self, agg: Agg, mix: impl FnOnce() -> Mix) {
        self.aggs.push(agg);
        if let Some(m) = self.mixes.as_mut() {
            m.push(mix());
        }
    }
}

/// Aggregates the selected points at positions `start..end` that lie in `bbox` into cells of
/// `level`, appending one [`Agg`] per non-empty cell (`families`: each point's family, for
/// the breakdown).
pub fn aggregate_run(
    points: &Points,
    families: &MixIndex,
    sel: Selection<'_>,
    (start, end): (usize, usize),
    level: u32,
    bbox: &crate::map::Bbox,
    out: &mut Aggs,
) {
    aggregate_points(
        points,
        families,
        (start..end).map(|pos| sel.at(pos)),
        level,
        bbox,
        out,
    );
}

/// Like [`aggregate_run`] over the points `start..end` of the whole snapshot, keeping only
/// those whose bit is set in `bits` (a filter not yet resolved into a list and levels).
pub fn aggregate_masked(
    points: &Points,
    families: &MixIndex,
    bits: &[u64],
    (start, end): (usize, usize),
    level: u32,
    bbox: &crate::map::Bbox,
    out: &mut Aggs,
) {
    let kept = (start..end).filter(|&i| (bits[i / 64] >> (i % 64)) & 1 == 1);
    aggregate_points(points, families, kept, level, bbox, out);
}

/// Aggregates the points `idx` (ascending) that lie in `bbox` into cells of `level`.
fn aggregate_points(
    points: &Points,
    families: &MixIndex,
    idx: impl Iterator<Item = usize>,
    level: u32,
    bbox: &crate::map::Bbox,
    out: &mut Aggs,
) {
    let breakdown = out.mixes.is_some();
    let mut current: Option<Agg> = None;
    let mut mix: Mix = [0; COUNT];
    let flush = |a: Agg, m: &mut Mix, out: &mut Aggs| {
        out.aggs.push(a);
        if let Some(ms) = out.mixes.as_mut() {
            ms.push(*m);
            *m = [0; COUNT];
        }
    };
    for i in idx {
        let (lon, lat) = (points.lon[i], points.lat[i]);
        if !bbox.contains(lon, lat) {
            continue;
        }
        let m = points.morton[i];
        let key = grid::key_at(m, level);
        match current.as_mut() {
            Some(a) if a.key == key => {
                a.count += 1;
                a.last_m = m;
                a.sum_lon += lon;
                a.sum_lat += lat;
            }
            _ => {
                if let Some(done) = current.take() {
                    flush(done, &mut mix, out);
                }
                current = Some(Agg {
                    key,
                    count: 1,
                    first: i as u32,
                    first_m: m,
                    last_m: m,
                    sum_lon: lon,
                    sum_lat: lat,
                });
            }
        }
        if breakdown {
            mix[usize::from(families.at(i)).min(COUNT - 1)] += 1;
        }
    }
    if let Some(done) = current {
        flush(done, &mut mix, out);
    }
}
