//! The bands behind one flow: the kept bands with a segment from one cell to the other
//! that counts in the view (the rule of [`Snapshot::flow_pairs`]), for the list a click on
//! a flow opens.

use crate::map::family::Family;
use crate::map::flows::aggregate::{FlowQuery, flow_level, kept};
use crate::map::grid::MAX_LEVEL;
use crate::map::snapshot::Snapshot;

/// One band of a flow.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowBand<'a> {
    /// Upstream id.
    pub ma_id: i64,
    /// Name.
    pub name: &'a str,
    /// Genre.
    pub genre: Option<&'a str>,
    /// Genre family.
    pub family: Family,
    /// Formation year.
    pub formed_year: Option<i32>,
    /// Its segments in this flow (2 for a band that made the move twice).
    pub moves: u32,
}

/// The bands of one flow.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowBands<'a> {
    /// Segments of the flow (its `count` in `/api/flows`).
    pub count: u32,
    /// Distinct bands.
    pub bands: u32,
    /// The first `limit` bands by name (then id).
    pub items: Vec<FlowBand<'a>>,
}

impl Snapshot {
    /// The bands of the flow from cell `from` to cell `to` (level coordinates at the
    /// query's level) in the view and under the filters of `q`; at most `q.limit` listed.
    pub fn flow_bands(&self, q: &FlowQuery, from: (u32, u32), to: (u32, u32)) -> FlowBands<'_> {
        let level = flow_level(&q.bbox, q.zoom);
        let shift = 2 * (MAX_LEVEL - level);
        let (kf, kt) = (
            crate::map::grid::key_of(from.0, from.1),
            crate::map::grid::key_of(to.0, to.1),
        );
        let index = (!q.filter.is_empty()).then(|| self.filter_index(&q.filter));
        let bits = index.as_ref().map(|ix| ix.bits.as_slice());
        let p = &self.points;
        let paths = &self.flows.paths;
        let view = crate::map::flows::view::View::new(&q.bbox);
        // The segments starting in the start cell are one run (sorted by start point).
        let cell = crate::map::flows::places::cell_run(&p.morton, level, kf);
        let lo = paths.from.partition_point(|&a| (a as usize) < cell.start);
        let hi = paths.from.partition_point(|&a| (a as usize) < cell.end);
        let mut bands: Vec<u32> = Vec::new();
        for s in lo..hi {
            let (a, mb) = (paths.from[s] as usize, paths.to_morton[s]);
            if mb >> shift != kt || !kept(bits, a) {
                continue;
            }
            if !(view.contains(p, a) || view.contains_coded(p, paths.to[s] as usize, mb)) {
                continue;
            }
            bands.push(p.band[a]);
        }
        bands.sort_unstable();
        let mut moves: Vec<(u32, u32)> = Vec::new();
        for band in bands {
            match moves.last_mut() {
                Some((last, n)) if *last == band => *n += 1,
                _ => moves.push((band, 1)),
            }
        }
        let count = moves.iter().map(|m| m.1).sum();
        let bands = moves.len() as u32;
        let mut items: Vec<FlowBand<'_>> = moves
            .into_iter()
            .map(|(band, n)| {
                let j = band as usize;
                FlowBand {
                    ma_id: self.bands.ma_id[j],
                    name: self.texts.get(self.bands.name[j]),
                    genre: self.string(self.bands.genre[j]),
                    family: self.band_family(band),
                    formed_year: self.bands.formed_year[j],
                    moves: n,
                }
            })
            .collect();
        items.sort_by(|x, y| x.name.cmp(y.name).then(x.ma_id.cmp(&y.ma_id)));
        items.truncate(q.limit);
        FlowBands {
            count,
            bands,
            items,
        }
    }
}
