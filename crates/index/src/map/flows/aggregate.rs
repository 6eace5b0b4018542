//! A flow query: the segments of the kept bands counted by (start cell, end cell) at the
//! level `/api/clusters` uses for the same bbox and zoom, the largest pairs kept and the
//! rest summed into one `other` total.

use crate::map::family::{COUNT, Mix};
use crate::map::filter::Filter;
use crate::map::flows::pair_hash::KeyMap;
use crate::map::flows::places::Place;
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

fn covers_the_world(b: &Bbox) -> bool {
    b.min_lon <= -180.0 && b.min_lat <= -90.0 && b.max_lon >= 180.0 && b.max_lat >= 90.0
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
    /// an end inside `bbox`, with its counts, in order of first segment.
    pub fn flow_pairs(&self, level: u32, bbox: &Bbox, bits: Option<&[u64]>) -> Vec<PairCount> {
        let paths = &self.flows.paths;
        let p = &self.points;
        let shift = 2 * (MAX_LEVEL - level.min(MAX_LEVEL));
        let world = covers_the_world(bbox);
        let mut slot_of: KeyMap<(u64, u64), u32> = KeyMap::default();
        let mut out: Vec<PairCount> = Vec::new();
        for (&a, &b) in paths.from.iter().zip(&paths.to) {
            let (a, b) = (a as usize, b as usize);
            if !kept(bits, a) {
                continue;
            }
            let (ka, kb) = (p.morton[a] >> shift, p.morton[b] >> shift);
            if ka == kb {
                continue;
            }
            if !world && !bbox.contains(p.lon[a], p.lat[a]) && !bbox.contains(p.lon[b], p.lat[b]) {
                continue;
            }
            let slot = *slot_of.entry((ka, kb)).or_insert_with(|| {
                out.push(PairCount {
                    from: ka,
                    to: kb,
                    count: 0,
                    families: [0; COUNT],
                });
                (out.len() - 1) as u32
            });
            let pair = &mut out[slot as usize];
            pair.count += 1;
            pair.families[usize::from(self.mix.at(a)).min(COUNT - 1)] += 1;
        }
        out
    }
}

/// Level coordinates of a cell key (for the answer).
pub fn cell_xy(key: u64) -> (u32, u32) {
    grid::decode(key)
}
