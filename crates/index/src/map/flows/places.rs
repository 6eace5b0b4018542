//! The ends of the flows: for a cell, where `/api/clusters` draws it (the mean of its kept
//! points inside the bbox, summed in the same order, so the ends sit exactly on the
//! clusters; a cell with no kept point inside — off screen — at the mean of all its kept
//! points), its town name when it holds one town, and its largest town's name.

use crate::map::flows::aggregate::kept;
use crate::map::grid::MAX_LEVEL;
use crate::map::query::Bbox;
use crate::map::snapshot::Snapshot;
use std::ops::Range;

/// One end of one or more flows.
#[derive(Debug, Clone, PartialEq)]
pub struct Place<'a> {
    /// Cell key at the answer's level.
    pub key: u64,
    /// Position (see the module).
    pub lon: f64,
    /// Position.
    pub lat: f64,
    /// Kept points the position is the mean of (the cluster's `count` when on screen).
    pub points: u32,
    /// The town's name when every one of those points has the same coordinates.
    pub label: Option<&'a str>,
    /// The name of the town holding most of those points (points at one finest-level
    /// position, ~150 m; the first in Morton order on a tie).
    pub main: &'a str,
    /// Segments of the answer's flows (listed or not) ending here.
    pub incoming: u32,
    /// Segments starting here.
    pub outgoing: u32,
}

/// The town part of a raw location: up to the first comma, trimmed (`Bergen, Vestland` →
/// `Bergen`).
pub fn town_name(raw: &str) -> &str {
    raw.split(',').next().unwrap_or(raw).trim()
}

/// Positions of the points of cell `key` of `level` (points are Morton-sorted, so a cell's
/// points are one run).
pub fn cell_run(morton: &[u64], level: u32, key: u64) -> Range<usize> {
    let shift = 2 * (MAX_LEVEL - level.min(MAX_LEVEL));
    let lo = key << shift;
    let hi = (key + 1) << shift;
    morton.partition_point(|&m| m < lo)..morton.partition_point(|&m| m < hi)
}

impl Snapshot {
    /// The place of cell `key` of `level` for a view (`incoming`/`outgoing` left at 0).
    pub fn place(&self, level: u32, key: u64, bbox: &Bbox, bits: Option<&[u64]>) -> Place<'_> {
        let p = &self.points;
        let run = cell_run(&p.morton, level, key);
        let (mut n_in, mut lon_in, mut lat_in) = (0u32, 0f64, 0f64);
        let (mut n_all, mut lon_all, mut lat_all) = (0u32, 0f64, 0f64);
        for i in run.clone() {
            if !kept(bits, i) {
                continue;
            }
            let (lon, lat) = (p.lon[i], p.lat[i]);
            n_all += 1;
            lon_all += lon;
            lat_all += lat;
            if bbox.contains(lon, lat) {
                n_in += 1;
                lon_in += lon;
                lat_in += lat;
            }
        }
        let inside = n_in > 0;
        let (n, sum_lon, sum_lat) = if inside {
            (n_in, lon_in, lat_in)
        } else {
            (n_all, lon_all, lat_all)
        };
        let chosen =
            run.filter(|&i| kept(bits, i) && (!inside || bbox.contains(p.lon[i], p.lat[i])));
        let towns = self.towns(chosen);
        let d = f64::from(n.max(1));
        Place {
            key,
            lon: sum_lon / d,
            lat: sum_lat / d,
            points: n,
            label: towns
                .only
                .map(|i| self.town_of(i))
                .filter(|s| !s.is_empty()),
            main: towns.largest.map_or("", |i| self.town_of(i)),
            incoming: 0,
            outgoing: 0,
        }
    }

    fn town_of(&self, point: usize) -> &str {
        town_name(self.texts.get(self.points.location_raw[point]))
    }

    /// The single town of some points of one cell (ascending), if they share coordinates,
    /// and the first point of their largest run of one finest-level position.
    fn towns(&self, points: impl Iterator<Item = usize>) -> Towns {
        let p = &self.points;
        let mut first: Option<usize> = None;
        let mut one = true;
        let (mut best, mut best_len) = (None, 0u32);
        let (mut run_start, mut run_len, mut run_m) = (0usize, 0u32, u64::MAX);
        for i in points {
            match first {
                None => first = Some(i),
                Some(f) => {
                    one &= p.lon[i].to_bits() == p.lon[f].to_bits()
                        && p.lat[i].to_bits() == p.lat[f].to_bits();
                }
            }
            if p.morton[i] == run_m {
                run_len += 1;
            } else {
                (run_start, run_len, run_m) = (i, 1, p.morton[i]);
            }
            if run_len > best_len {
                (best, best_len) = (Some(run_start), run_len);
            }
        }
        Towns {
            only: first.filter(|_| one),
            largest: best,
        }
    }
}

struct Towns {
    only: Option<usize>,
    largest: Option<usize>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn town_names() {
        assert_eq!(town_name("Bergen, Vestland"), "Bergen");
        assert_eq!(town_name(" Oslo "), "Oslo");
        assert_eq!(town_name(""), "");
    }
}
