//! The segments of the bands' paths: for each band, its placed points in path order
//! (`parsed_step`, then `location_id` — a manual override keeps the parser's step, so it
//! takes the place of the step it corrects, as on the card), and one segment per pair of
//! consecutive points of two different steps (the places of one step, `Vinterbro /
//! Trysil`, are where the band was at once, not a move: the move into a step starts from
//! the last place of the step before and ends at its first place, in id order). Stored sorted by start point, so by the start's Morton code: a
//! query reads the start points' columns forward and the segments of one start cell are
//! contiguous at every level; the end's finest Morton code is kept beside (the ends are
//! scattered, one random read each would dominate a query).

use crate::map::groups::Groups;
use crate::map::snapshot::Points;

/// Segments `from[s] → to[s]` (point indexes), sorted by `from` (then `to`).
#[derive(Debug, Default)]
pub struct Paths {
    /// Start point of each segment.
    pub from: Vec<u32>,
    /// End point of each segment.
    pub to: Vec<u32>,
    /// Finest-level Morton code of each segment's end (`points.morton[to]`).
    pub to_morton: Vec<u64>,
}

impl Paths {
    /// Lists the segments of every band of `band_points`.
    pub fn build(points: &Points, band_points: &Groups, path_step: &[i32]) -> Paths {
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        let mut ordered: Vec<u32> = Vec::new();
        for band in 0..band_points.keys() as u32 {
            let own = band_points.get(band);
            if own.len() < 2 {
                continue;
            }
            ordered.clear();
            ordered.extend_from_slice(own);
            ordered.sort_unstable_by_key(|&p| {
                let p = p as usize;
                (
                    path_step.get(p).copied().unwrap_or(i32::MAX),
                    points.location_id[p],
                )
            });
            // Two places of one step (`Vinterbro / Trysil`) are not a move.
            let step = |p: u32| path_step.get(p as usize).copied().unwrap_or(i32::MAX);
            pairs.extend(
                ordered
                    .windows(2)
                    .filter(|w| step(w[0]) != step(w[1]))
                    .map(|w| (w[0], w[1])),
            );
        }
        pairs.sort_unstable();
        Paths {
            from: pairs.iter().map(|p| p.0).collect(),
            to: pairs.iter().map(|p| p.1).collect(),
            to_morton: pairs.iter().map(|p| points.morton[p.1 as usize]).collect(),
        }
    }

    /// Number of segments.
    pub fn len(&self) -> usize {
        self.from.len()
    }

    /// Whether no band has two placed steps.
    pub fn is_empty(&self) -> bool {
        self.from.is_empty()
    }

    /// Approximate bytes held.
    pub fn bytes(&self) -> usize {
        16 * self.from.len()
    }
}
