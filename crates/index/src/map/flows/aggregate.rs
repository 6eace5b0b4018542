//! A flow query: the segments of the kept bands counted by (start cell, end cell) at the
//! level `/api/clusters` uses for the same bbox and zoom, the largest pairs kept and the
//! rest summed into one `other` total.

use crate::map::family::{COUNT, Mix};
use crate::map::filter::Filter;
use crate::map::flows::pair_hash::KeyMap;
use crate::map::flows::places::Place;
use crate::map::flows::view::View;
use crate::map::grid::{self, MAX_LEVEL};
use crate::map::query::{Bbox, plan};
use crate::map::snapshot::Snapshot;
use std::cmp::Reverse;

/// A flow query: the view, the zoom, the filters and how many flows to list.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowQuery {
    /// A flow counts when either end lies inside (borders included).
    pub bbox: Bbox,
    /// Zoom 0–20: the cells are those of `/api/clusters` at this zoom and bbox (zoom ≥ 17:
    /// the finest cells).
    pub zoom: u8,
    /// The bands kept (same rules as the clusters).
    pub filter: Filter,
    /// Most flows listed (1–[`super::MAX_LIMIT`]).
    pub limit: usize,
}

/// All the segments between one ordered pair of cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PairCount {
    /// Start cell key at the query's level.
    pub from: u64,
    /// End cell key.
    pub to: u64,
    /// Segments.
    pub count: u32,
    /// Segments per genre family of their band.
    pub families: Mix,
}

/// One listed flow: indexes into [`FlowAnswer::places`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flow {
    /// Start place.
    pub from: u32,
    /// End place.
    pub to: u32,
    /// Segments (consecutive placed steps of a kept band) from one to the other.
    pub count: u32,
    /// The same per genre family.
    pub families: Mix,
}

/// The flows left out by the limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Other {
    /// How many pairs of places.
    pub flows: u32,
    /// Their segments.
    pub count: u32,
}

/// The answer of a flow query.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowAnswer<'a> {
    /// Grid level of the cells.
    pub level: u32,
    /// The largest flows, largest first (ties: by start then end cell key).
    pub flows: Vec<Flow>,
    /// What the limit left out.
    pub other: Other,
    /// Segments of every flow, listed or not (= sum of the listed counts + `other.count`).
    pub total: u32,
    /// The ends of the listed flows, in order of first appearance.
    pub places: Vec<Place<'a>>,
}

/// The grid level of a flow query: the level of the clusters' plan (zoom ≥ 17, where the
/// clusters are single points: the finest level).
pub fn flow_level(bbox: &Bbox, zoom: u8) -> u32 {
    let p = plan(bbox, zoom);
    if p.individual { MAX_LEVEL } else { p.level }
}

/// Whether bit `i` is set (`None` = no filter: every point kept).
#[inline]
pub(crate) fn kept(bits: Option<&[u64]>, i: usize) -> bool {
    bits.is_none_or(|b| (b[i / 64] >> (i % 64)) & 1 == 1)
}

impl Snapshot {
    /// Answers a flow query.
    pub fn flows(&self, q: &FlowQuery) -> FlowAnswer<'_> {
        let level = flow_level(&q.bbox, q.zoom);
        let index = (!q.filter.is_empty()).then(|| self.filter_index(&q.filter));
        let bits = index.as_ref().map(|ix| ix.bits.as_slice());
        let pairs = self.flow_pairs(level, &q.bbox, bits);
        let total: u32 = pairs.iter().map(|p| p.count).sum();
        let rank = |p: &PairCount| (Reverse(p.count), p.from, p.to);
        let mut order: Vec<&PairCount> = pairs.iter().collect();
        let limit = q.limit.max(1);
        if order.len() > limit {
            order.select_nth_unstable_by_key(limit, |p| rank(p));
            order.truncate(limit);
        }
        order.sort_unstable_by_key(|p| rank(p));
        let listed: u32 = order.iter().map(|p| p.count).sum();
        let other = Other {
            flows: (pairs.len() - order.len()) as u32,
            count: total - listed,
        };
        // The listed flows' ends, numbered in order of first appearance.
        let mut place_of: KeyMap<u64, u32> = KeyMap::default();
        let mut keys: Vec<u64> = Vec::new();
        let mut number = |key: u64| -> u32 {
            *place_of.entry(key).or_insert_with(|| {
                keys.push(key);
                (keys.len() - 1) as u32
            })
        };
        let flows: Vec<Flow> = order
            .iter()
            .map(|p| Flow {
                from: number(p.from),
                to: number(p.to),
                count: p.count,
                families: p.families,
            })
            .collect();
        // Totals over every flow of the view, listed or not.
        let mut totals = vec![(0u32, 0u32); keys.len()];
        for p in &pairs {
            if let Some(&i) = place_of.get(&p.from) {
                totals[i as usize].1 += p.count;
            }
            if let Some(&i) = place_of.get(&p.to) {
                totals[i as usize].0 += p.count;
            }
        }
        let places = keys
            .iter()
            .zip(totals)
            .map(|(&key, (incoming, outgoing))| {
                let mut place = self.place(level, key, &q.bbox, bits);
                place.incoming = incoming;
                place.outgoing = outgoing;
                place
            })
            .collect();
        FlowAnswer {
            level,
            flows,
            other,
            total,
            places,
        }
    }

    /// Every pair of distinct level-`level` cells joined by a segment of a kept band with
    /// an end inside `bbox`, with its counts, ordered by (start, end) cell key.
    ///
    /// The segments are sorted by start point, so the start cells come in ascending
    /// order: the ends of one start cell are gathered (end key and family packed in one
    /// word), sorted and counted, with no table over every pair of the view.
    pub fn flow_pairs(&self, level: u32, bbox: &Bbox, bits: Option<&[u64]>) -> Vec<PairCount> {
        let paths = &self.flows.paths;
        let p = &self.points;
        let shift = 2 * (MAX_LEVEL - level.min(MAX_LEVEL));
        let view = View::new(bbox);
        let mut out: Vec<PairCount> = Vec::new();
        let mut ends: Vec<u64> = Vec::new();
        let mut start: Option<u64> = None;
        for s in 0..paths.len() {
            let a = paths.from[s] as usize;
            if !kept(bits, a) {
                continue;
            }
            let ka = p.morton[a] >> shift;
            let mb = paths.to_morton[s];
            let kb = mb >> shift;
            if ka == kb
                || !(view.contains(p, a) || view.contains_coded(p, paths.to[s] as usize, mb))
            {
                continue;
            }
            if start != Some(ka) {
                if let Some(k) = start {
                    count_ends(k, &mut ends, &mut out);
                }
                start = Some(ka);
            }
            ends.push(kb << FAMILY_BITS | u64::from(self.mix.at(a)));
        }
        if let Some(k) = start {
            count_ends(k, &mut ends, &mut out);
        }
        out
    }
}

/// Bits of a packed end word holding the family.
const FAMILY_BITS: u32 = 4;

/// Counts the packed ends of one start cell into pairs (and empties the list).
fn count_ends(from: u64, ends: &mut Vec<u64>, out: &mut Vec<PairCount>) {
    ends.sort_unstable();
    for &e in ends.iter() {
        let to = e >> FAMILY_BITS;
        let family = ((e & ((1 << FAMILY_BITS) - 1)) as usize).min(COUNT - 1);
        match out.last_mut() {
            Some(last) if last.from == from && last.to == to => {
                last.count += 1;
                last.families[family] += 1;
            }
            _ => {
                let mut families = [0; COUNT];
                families[family] = 1;
                out.push(PairCount {
                    from,
                    to,
                    count: 1,
                    families,
                });
            }
        }
    }
    ends.clear();
}

/// Level coordinates of a cell key (for the answer).
pub fn cell_xy(key: u64) -> (u32, u32) {
    grid::decode(key)
}
