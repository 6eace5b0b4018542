//! The segments of the bands' paths: for each band, its placed points in path order
//! (`parsed_step`, then `location_id` — a manual override keeps the parser's step, so it
//! takes the place of the step it corrects, as on the card), and one segment per pair of
//! consecutive points. Two columns of point indexes, grouped by band.

use crate::map::groups::Groups;
use crate::map::snapshot::Points;

/// Segments `from[s] → to[s]` (point indexes), all of one band contiguous.
#[derive(Debug, Default)]
pub struct Paths {
    /// Start point of each segment.
    pub from: Vec<u32>,
    /// End point of each segment.
    pub to: Vec<u32>,
}

impl Paths {
    /// Lists the segments of every band of `band_points`.
    pub fn build(points: &Points, band_points: &Groups, path_step: &[i32]) -> Paths {
        let mut paths = Paths::default();
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
            for pair in ordered.windows(2) {
                paths.from.push(pair[0]);
                paths.to.push(pair[1]);
            }
        }
        paths.from.shrink_to_fit();
        paths.to.shrink_to_fit();
        paths
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
        8 * self.from.len()
    }
}
