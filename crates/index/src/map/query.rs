//! Answering a cluster query from a snapshot: choose the grid level (bounded response),
//! pick the cells the bbox touches, use precomputed aggregates for cells wholly inside the
//! bbox and re-aggregate the points of the others.

use crate::map::family::Mix;
use crate::map::filter::{Filter, FilterIndex};
use crate::map::grid::{self, MAX_LEVEL};
use crate::map::levels::{self, Agg, Aggs, Cell, Level, PRE_LEVEL, Selection};
use crate::map::snapshot::Snapshot;

/// Most cells a clustered answer may cover (so at most about this many features, see
/// docs/map.md).
pub const MAX_CELLS: u64 = 4096;
/// Most single points returned at zoom ≥ 17 (lowest `location_id` first).
pub const MAX_POINTS: usize = 5000;
/// Highest zoom at which points are clustered.
pub const MAX_CLUSTER_ZOOM: u8 = 16;
/// Highest accepted zoom.
pub const MAX_ZOOM: u8 = 20;

/// A bounding box in degrees, inclusive on every side.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bbox {
    /// West.
    pub min_lon: f64,
    /// South.
    pub min_lat: f64,
    /// East.
    pub max_lon: f64,
    /// North.
    pub max_lat: f64,
}

impl Bbox {
    /// The whole world.
    pub const WORLD: Bbox = Bbox {
        min_lon: -180.0,
        min_lat: -90.0,
        max_lon: 180.0,
        max_lat: 90.0,
    };

    /// Whether a point lies inside (borders included).
    #[inline]
    pub fn contains(&self, lon: f64, lat: f64) -> bool {
        lon >= self.min_lon && lon <= self.max_lon && lat >= self.min_lat && lat <= self.max_lat
    }

    fn contains_bounds(&self, b: &[f64; 4]) -> bool {
        self.contains(b[0], b[1]) && self.contains(b[2], b[3])
    }

    /// Inclusive cell range `(x0, y0, x1, y1)` at `level` (y grows southwards).
    pub fn cells(&self, level: u32) -> (u32, u32, u32, u32) {
        let s = MAX_LEVEL - level;
        (
            grid::cell_x(self.min_lon) >> s,
            grid::cell_y(self.max_lat) >> s,
            grid::cell_x(self.max_lon) >> s,
            grid::cell_y(self.min_lat) >> s,
        )
    }

    /// Number of cells covered at `level`.
    pub fn cell_count(&self, level: u32) -> u64 {
        let (x0, y0, x1, y1) = self.cells(level);
        (u64::from(x1.saturating_sub(x0)) + 1) * (u64::from(y1.saturating_sub(y0)) + 1)
    }
}

/// A query.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterQuery {
    /// Area.
    pub bbox: Bbox,
    /// Zoom 0–20.
    pub zoom: u8,
    /// Filters.
    pub filter: Filter,
}

/// How a query is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// Grid level of the cells.
    pub level: u32,
    /// Every point on its own (zoom ≥ 17).
    pub individual: bool,
}

/// The level rule: zoom ≥ 17 → every point on its own (at most [`MAX_POINTS`]); otherwise
/// level `zoom + 2`, lowered until the bbox covers at most [`MAX_CELLS`] cells.
pub fn plan(bbox: &Bbox, zoom: u8) -> Plan {
    if zoom > MAX_CLUSTER_ZOOM {
        return Plan {
            level: MAX_LEVEL,
            individual: true,
        };
    }
    let mut level = grid::level_of_zoom(zoom);
    while level > 0 && bbox.cell_count(level) > MAX_CELLS {
        level -= 1;
    }
    Plan {
        level,
        individual: false,
    }
}

/// One feature of the answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Feature {
    /// Two or more points.
    Cluster {
        /// Cell key at the plan's level.
        key: u64,
        /// Mean longitude.
        lon: f64,
        /// Mean latitude.
        lat: f64,
        /// Points.
        count: u32,
        /// Zoom that splits the cluster.
        expansion_zoom: u8,
    },
    /// One point (index into the snapshot's points).
    Point {
        /// Cell key at the plan's level (0 for individual answers).
        key: u64,
        /// Point index.
        idx: u32,
    },
}

/// The answer.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryResult {
    /// How it was computed.
    pub plan: Plan,
    /// Features in cell-key order (individual answers: `location_id` order).
    pub features: Vec<Feature>,
    /// Whether points beyond [`MAX_POINTS`] were left out.
    pub truncated: bool,
    /// With the family breakdown: the family counts of each feature (same index; a single
    /// point counts its band's family once). `None` without it, and for zoom ≥ 17 answers
    /// (single points only: each carries its family).
    pub mixes: Option<Vec<Mix>>,
}

/// `expansion_zoom` of a cluster seen at `zoom`.
pub fn expansion_zoom(first_m: u64, last_m: u64, zoom: u8) -> u8 {
    grid::split_zoom(first_m, last_m)
        .max(zoom.saturating_add(1))
        .min(MAX_ZOOM)
}

impl Snapshot {
    /// Answers a query.
    pub fn query(&self, q: &ClusterQuery) -> QueryResult {
        self.query_with(q, false)
    }

    /// Answers a query; `breakdown` = also count each cluster's genre families
    /// ([`QueryResult::mixes`]). The features are the same either way.
    pub fn query_with(&self, q: &ClusterQuery, breakdown: bool) -> QueryResult {
        let plan = plan(&q.bbox, q.zoom);
        let index: Option<std::sync::Arc<FilterIndex>> =
            (!q.filter.is_empty()).then(|| self.filter_index(&q.filter));
        if let Some(result) = index
            .as_ref()
            .and_then(|ix| self.query_masked(ix, q, plan, breakdown))
        {
            return result;
        }
        let sel = match &index {
            Some(ix) => Selection::List(ix.matched()),
            None => Selection::All(self.len()),
        };
        let level_of = |g: u32| -> &Level {
            match &index {
                Some(ix) => ix.level(self, g),
                None => &self.levels[g as usize],
            }
        };
        if plan.individual {
            return self.individual(sel, level_of(PRE_LEVEL), &q.bbox);
        }
        // Family counts over positions of the selection (precomputed cells).
        let mix_of = |start: u32, end: u32| -> Mix {
            let mix = match &index {
                Some(ix) => ix.mix(self),
                None => &self.mix,
            };
            mix.count(start as usize, end as usize)
        };
        let mut out = Aggs::new(breakdown);
        if plan.level <= PRE_LEVEL {
            for cell in candidates(level_of(plan.level), plan.level, &q.bbox) {
                if q.bbox.contains_bounds(&cell.bounds) {
                    out.push_cell(cell.agg, || mix_of(cell.start, cell.end));
                } else {
                    let run = (cell.start as usize, cell.end as usize);
                    levels::aggregate_run(
                        &self.points,
                        &self.mix,
                        sel,
                        run,
                        plan.level,
                        &q.bbox,
                        &mut out,
                    );
                }
            }
        } else {
            for cell in candidates(level_of(PRE_LEVEL), PRE_LEVEL, &q.bbox) {
                let run = (cell.start as usize, cell.end as usize);
                levels::aggregate_run(
                    &self.points,
                    &self.mix,
                    sel,
                    run,
                    plan.level,
                    &q.bbox,
                    &mut out,
                );
            }
        }
        clustered(plan, out, q.zoom)
    }

    /// Answers a filtered query from the filter's point bitset and the unfiltered cells,
    /// when the filter has no level for this query yet and scanning the view's points is
    /// cheaper than building one: the view's cells hold at most twice the filter's
    /// matches on its first query (a level costs a pass to list the matches and one to
    /// aggregate them, the scan a bit test per point of the view), at most half of them
    /// afterwards (a filter in use gets its levels, which answer repeated queries from
    /// precomputed cells). Aggregates equal those of the level path (same points, same
    /// ascending order). `None` = use the level path.
    fn query_masked(
        &self,
        ix: &FilterIndex,
        q: &ClusterQuery,
        plan: Plan,
        breakdown: bool,
    ) -> Option<QueryResult> {
        let first = ix.first_use();
        if plan.individual {
            return None;
        }
        let coarse = plan.level.min(PRE_LEVEL);
        if ix.has_level(coarse) {
            return None;
        }
        let cells = candidates(&self.levels[coarse as usize], coarse, &q.bbox);
        let span: usize = cells.iter().map(|c| (c.end - c.start) as usize).sum();
        let limit = if first { 2 * ix.count } else { ix.count / 2 };
        if span > limit {
            return None;
        }
        let mut out = Aggs::new(breakdown);
        for cell in cells {
            let run = (cell.start as usize, cell.end as usize);
            levels::aggregate_masked(
                &self.points,
                &self.mix,
                &ix.bits,
                run,
                plan.level,
                &q.bbox,
                &mut out,
            );
        }
        Some(clustered(plan, out, q.zoom))
    }

    fn individual(&self, sel: Selection<'_>, coarse: &Level, bbox: &Bbox) -> QueryResult {
        let mut idx: Vec<u32> = Vec::new();
        for cell in candidates(coarse, PRE_LEVEL, bbox) {
            for pos in cell.start as usize..cell.end as usize {
                let i = sel.at(pos);
                if bbox.contains(self.points.lon[i], self.points.lat[i]) {
                    idx.push(i as u32);
                }
            }
        }
        let id = |i: &u32| self.points.location_id[*i as usize];
        let truncated = idx.len() > MAX_POINTS;
        if truncated {
            idx.select_nth_unstable_by_key(MAX_POINTS, id);
            idx.truncate(MAX_POINTS);
        }
        idx.sort_unstable_by_key(id);
        QueryResult {
            plan: Plan {
                level: MAX_LEVEL,
                individual: true,
            },
            features: idx
                .into_iter()
                .map(|idx| Feature::Point { key: 0, idx })
                .collect(),
            truncated,
            mixes: None,
        }
    }
}

/// The answer of a clustered plan: its cell aggregates in key order, as features (the
/// family counts, when kept, follow their aggregate).
fn clustered(plan: Plan, out: Aggs, zoom: u8) -> QueryResult {
    let Aggs { mut aggs, mixes } = out;
    let mixes = match mixes {
        None => {
            aggs.sort_unstable_by_key(|a| a.key);
            None
        }
        Some(mixes) => {
            let mut pairs: Vec<(Agg, Mix)> = aggs.into_iter().zip(mixes).collect();
            pairs.sort_unstable_by_key(|(a, _)| a.key);
            let (a, m): (Vec<Agg>, Vec<Mix>) = pairs.into_iter().unzip();
            aggs = a;
            Some(m)
        }
    };
    QueryResult {
        plan,
        features: aggs.iter().map(|a| to_feature(a, zoom)).collect(),
        truncated: false,
        mixes,
    }
}

fn to_feature(a: &Agg, zoom: u8) -> Feature {
    if a.count == 1 {
        Feature::Point {
            key: a.key,
            idx: a.first,
        }
    } else {
        let n = f64::from(a.count);
        Feature::Cluster {
            key: a.key,
            lon: a.sum_lon / n,
            lat: a.sum_lat / n,
            count: a.count,
            expansion_zoom: expansion_zoom(a.first_m, a.last_m, zoom),
        }
    }
}

/// Cells of `level` whose coordinates fall in the bbox's cell range widened by one cell
/// (float rounding of the projection must never lose a border point; the per-point bbox
/// test decides).
fn candidates<'a>(level: &'a Level, g: u32, bbox: &Bbox) -> Vec<&'a Cell> {
    let (x0, y0, x1, y1) = bbox.cells(g);
    let top = (1u32 << g) - 1;
    let (x0, y0) = (x0.saturating_sub(1), y0.saturating_sub(1));
    let (x1, y1) = ((x1 + 1).min(top), (y1 + 1).min(top));
    let cells = &level.cells;
    let lo = cells.partition_point(|c| c.agg.key < grid::key_of(x0, y0));
    let hi = cells.partition_point(|c| c.agg.key <= grid::key_of(x1, y1));
    let slice = &cells[lo..hi];
    let area = (u64::from(x1 - x0) + 1) * (u64::from(y1 - y0) + 1);
    let inside = |c: &&Cell| {
        let (x, y) = grid::decode(c.agg.key);
        (x0..=x1).contains(&x) && (y0..=y1).contains(&y)
    };
    if (slice.len() as u64) <= area.saturating_mul(16) {
        return slice.iter().filter(inside).collect();
    }
    let mut out = Vec::new();
    for y in y0..=y1 {
        for x in x0..=x1 {
            let key = grid::key_of(x, y);
            if let Ok(p) = slice.binary_search_by_key(&key, |c| c.agg.key) {
                out.push(&slice[p]);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::map::PointRow;
    use proptest::prelude::*;

    fn rows(coords: &[(f64, f64, u8)]) -> Vec<PointRow> {
        const GENRES: [&str; 3] = ["Black Metal", "Doom Metal", "Black/Doom Metal"];
        coords
            .iter()
            .enumerate()
            .map(|(i, &(lon, lat, g))| PointRow {
                location_id: i as i64 + 1,
                // Two points per band, so a band's points are far apart in Morton order.
                ma_id: i as i64 / 2 + 1,
                lon,
                lat,
                step_order: (i % 2) as i32,
                parsed_step: (i % 2) as i32,
                step_label: None,
                location_raw: format!("place {i}"),
                name: format!("band {}", i / 2),
                genre: Some(GENRES[usize::from(g) % 3].to_string()),
                country: Some("Norway".into()),
                country_code: Some("NO".into()),
                status: Some("Active".into()),
                formed_year: Some(1990 + (i % 20) as i32),
            })
            .collect()
    }

    proptest! {
        /// A new filter answered from its bitset (small view, no level yet) gives the same
        /// answer as the same query once the filter's levels exist.
        #[test]
        fn masked_answers_equal_level_answers(
            coords in proptest::collection::vec((-10.0f64..30.0, 35.0f64..70.0, 0u8..3), 2..400),
            centre in (-10.0f64..30.0, 35.0f64..70.0),
            zoom in 6u8..14,
        ) {
            let snap = Snapshot::build(1, rows(&coords));
            let filter = Filter::new(Some("doom"), None, None, Some(1995), None);
            let half = 40.0 / f64::from(1u32 << (zoom - 4));
            let small = ClusterQuery {
                bbox: Bbox {
                    min_lon: centre.0 - half,
                    min_lat: centre.1 - half / 2.0,
                    max_lon: centre.0 + half,
                    max_lat: centre.1 + half / 2.0,
                },
                zoom,
                filter: filter.clone(),
            };
            let first = snap.query(&small);
            // Build every level of the filter, then ask again.
            let ix = snap.filter_index(&filter);
            for g in 0..=PRE_LEVEL {
                ix.level(&snap, g);
            }
            prop_assert_eq!(snap.query(&small), first);
        }
    }

    /// Family counts of every cluster the slow way: each kept point in the bbox, by its
    /// cell at the plan's level.
    fn brute_mixes(snap: &Snapshot, q: &ClusterQuery, level: u32) -> Vec<(u64, Mix)> {
        let mut by_key: std::collections::BTreeMap<u64, Mix> = Default::default();
        let ix = (!q.filter.is_empty()).then(|| snap.filter_index(&q.filter));
        for i in 0..snap.len() {
            if let Some(ix) = &ix
                && (ix.bits[i / 64] >> (i % 64)) & 1 == 0
            {
                continue;
            }
            if !q.bbox.contains(snap.points.lon[i], snap.points.lat[i]) {
                continue;
            }
            let key = grid::key_at(snap.points.morton[i], level);
            by_key.entry(key).or_insert([0; crate::map::family::COUNT])
                [usize::from(snap.mix.at(i))] += 1;
        }
        by_key.into_iter().collect()
    }

    proptest! {
        /// The breakdown's counts are the families of each feature's points (level path,
        /// bitset path, precomputed and cut cells, fine levels), and asking for it changes
        /// no feature.
        #[test]
        fn breakdown_counts_equal_a_plain_count(
            coords in proptest::collection::vec((-10.0f64..30.0, 35.0f64..70.0, 0u8..3), 2..300),
            centre in (-10.0f64..30.0, 35.0f64..70.0),
            zoom in 2u8..16,
            filtered in any::<bool>(),
            warm in any::<bool>(),
        ) {
            let snap = Snapshot::build(1, rows(&coords));
            let filter = if filtered {
                Filter::new(None, None, None, Some(1995), None)
                    .with_families(crate::map::Family::Doom.bit())
            } else {
                Filter::default()
            };
            let half = 40.0 / f64::from(1u32 << zoom.saturating_sub(4));
            let q = ClusterQuery {
                bbox: Bbox {
                    min_lon: centre.0 - half,
                    min_lat: centre.1 - half / 2.0,
                    max_lon: centre.0 + half,
                    max_lat: centre.1 + half / 2.0,
                },
                zoom,
                filter: filter.clone(),
            };
            if warm && filtered {
                let ix = snap.filter_index(&filter);
                for g in 0..=PRE_LEVEL {
                    ix.level(&snap, g);
                }
            }
            let with = snap.query_with(&q, true);
            let plain = snap.query(&q);
            prop_assert_eq!(&with.features, &plain.features);
            prop_assert!(plain.mixes.is_none());
            let mixes = with.mixes.clone().unwrap_or_default();
            prop_assert_eq!(mixes.len(), with.features.len());
            let want = brute_mixes(&snap, &q, with.plan.level);
            let got: Vec<(u64, Mix)> = with
                .features
                .iter()
                .zip(&mixes)
                .map(|(f, m)| match *f {
                    Feature::Cluster { key, .. } | Feature::Point { key, .. } => (key, *m),
                })
                .collect();
            prop_assert_eq!(got, want);
        }

        /// The family filter keeps exactly the points of bands of those families.
        #[test]
        fn the_family_filter_keeps_the_bands_of_its_families(
            coords in proptest::collection::vec((-10.0f64..30.0, 35.0f64..70.0, 0u8..3), 2..200),
            mask in 1u16..4,
        ) {
            let snap = Snapshot::build(1, rows(&coords));
            let mask = (if mask & 1 == 1 { crate::map::Family::Black.bit() } else { 0 })
                | (if mask & 2 == 2 { crate::map::Family::Doom.bit() } else { 0 });
            let filter = Filter::default().with_families(mask);
            let ix = snap.filter_index(&filter);
            let want = (0..snap.len())
                .filter(|&i| (mask >> snap.mix.at(i)) & 1 == 1)
                .count();
            prop_assert_eq!(ix.count, want);
            let q = ClusterQuery { bbox: Bbox::WORLD, zoom: 0, filter };
            let total: u32 = snap
                .query(&q)
                .features
                .iter()
                .map(|f| match f {
                    Feature::Cluster { count, .. } => *count,
                    Feature::Point { .. } => 1,
                })
                .sum();
            prop_assert_eq!(total as usize, want);
        }
    }

    #[test]
    fn a_small_view_of_a_new_filter_builds_no_level() {
        let coords: Vec<(f64, f64, u8)> = (0..200)
            .map(|i| {
                (
                    f64::from(i % 20) * 0.5,
                    45.0 + f64::from(i / 20) * 0.5,
                    (i % 3) as u8,
                )
            })
            .collect();
        let snap = Snapshot::build(1, rows(&coords));
        let filter = Filter::new(Some("black"), None, None, None, None);
        let q = ClusterQuery {
            bbox: Bbox {
                min_lon: 0.0,
                min_lat: 45.0,
                max_lon: 1.0,
                max_lat: 46.0,
            },
            zoom: 10,
            filter: filter.clone(),
        };
        let answer = snap.query(&q);
        assert!(!answer.features.is_empty());
        let ix = snap.filter_index(&filter);
        assert!((0..=PRE_LEVEL).all(|g| !ix.has_level(g)));
        // The whole view needs the level path, which builds the level.
        let world = ClusterQuery {
            bbox: Bbox::WORLD,
            zoom: 3,
            filter,
        };
        snap.query(&world);
        assert!(ix.has_level(plan(&Bbox::WORLD, 3).level));
    }
}
