//! Query-time filters on band columns and their cached indexes: a filter resolves to the
//! ascending list of matching points (one pass over interned values, then over points),
//! and its cluster levels are built lazily from that list. Indexes of the most recently
//! used filters are kept per snapshot.

use crate::map::family::MixIndex;
use crate::map::levels::{self, Level, Selection};
use crate::map::snapshot::Snapshot;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// Filter indexes kept per snapshot.
pub const CACHE_CAPACITY: usize = 64;

/// A normalised filter (text values lowercased; `None` = no constraint).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Filter {
    /// Case-insensitive substring of `bands.genre`.
    pub genre: Option<String>,
    /// Case-insensitive equality with `bands.country` or `bands.country_code`.
    pub country: Option<String>,
    /// Case-insensitive equality with `bands.status`.
    pub status: Option<String>,
    /// `formed_year >= year_min` (NULL years excluded).
    pub year_min: Option<i32>,
    /// `formed_year <= year_max` (NULL years excluded).
    pub year_max: Option<i32>,
    /// Genre families kept (bits of [`crate::map::Family::bit`]); 0 = every family.
    pub families: u16,
}

impl Filter {
    /// Builds a filter from already cleaned texts: empty texts mean no constraint.
    pub fn new(
        genre: Option<&str>,
        country: Option<&str>,
        status: Option<&str>,
        year_min: Option<i32>,
        year_max: Option<i32>,
    ) -> Filter {
        let norm = |v: Option<&str>| {
            v.map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_lowercase)
        };
        Filter {
            genre: norm(genre),
            country: norm(country),
            status: norm(status),
            year_min,
            year_max,
            families: 0,
        }
    }

    /// The same filter keeping only the bands of the families in `mask` (0 = all).
    pub fn with_families(mut self, mask: u16) -> Filter {
        self.families = mask & ((1 << crate::map::family::COUNT) - 1);
        self
    }

    /// Whether the filter lets every point through.
    pub fn is_empty(&self) -> bool {
        *self == Filter::default()
    }

    /// The points this filter keeps, as a bitset over the snapshot's points, and their
    /// number.
    ///
    /// Only the entries a filter needs are touched: with a genre constraint, the bands of
    /// the matching genre strings (through `genre_bands`), otherwise every band; each kept
    /// band sets the bits of its points (through `band_points`) in a point bitset (150,000
    /// points fit in 19 KB, in L1). The earlier version streamed five band columns and the
    /// whole point→band column for every filter (~3.4 MB at 150,000 points): memory-bound,
    /// about 1.3 ms on this machine (docs/performance.md).
    fn matching_points(&self, snap: &Snapshot) -> (Vec<u64>, usize) {
        let country = StringTable::new(snap, self.country.as_deref());
        let status = StringTable::new(snap, self.status.as_deref());
        let years = YearRange::new(self.year_min, self.year_max);
        let families = if self.families == 0 {
            u16::MAX
        } else {
            self.families
        };
        let b = &snap.bands;
        let mut bits = vec![0u64; snap.len().div_ceil(64)];
        let mut kept = 0usize;
        let mut take = |j: u32| {
            let j = j as usize;
            let ok = years.contains(b.formed_year[j])
                & (country.hit(b.country[j]) | country.hit(b.country_code[j]))
                & status.hit(b.status[j])
                & ((families >> b.family[j]) & 1 == 1);
            if ok {
                let points = snap.band_points.get(j as u32);
                for &p in points {
                    bits[p as usize / 64] |= 1 << (p % 64);
                }
                kept += points.len();
            }
        };
        match &self.genre {
            Some(want) => {
                let hits = snap.strings.matching(|s| s.contains(want.as_str()));
                for (id, _) in hits.iter().enumerate().filter(|(_, hit)| **hit) {
                    snap.genre_bands
                        .get(id as u32)
                        .iter()
                        .for_each(|&j| take(j));
                }
            }
            None => (0..b.ma_id.len() as u32).for_each(&mut take),
        }
        (bits, kept)
    }
}

/// The positions of the set bits, ascending (`n` = how many there are, for the capacity).
fn set_bits(bits: &[u64], n: usize) -> Vec<u32> {
    let mut out = Vec::with_capacity(n);
    for (w, &word) in bits.iter().enumerate() {
        let mut rest = word;
        while rest != 0 {
            out.push(w as u32 * 64 + rest.trailing_zeros());
            rest &= rest - 1;
        }
    }
    out
}

/// A per-id lookup table of one case-insensitive equality constraint (country, status)
/// over the interned strings; without a constraint every id (and the absent marker) is a
/// hit.
struct StringTable {
    /// One entry per interned id, then one for [`crate::map::intern::NONE`] (never a hit when
    /// constrained: NULL equals nothing).
    hits: Vec<bool>,
}

impl StringTable {
    fn new(snap: &Snapshot, want: Option<&str>) -> StringTable {
        let mut hits = match want {
            None => vec![true; snap.strings.len()],
            Some(w) => snap.strings.matching(|s| s == w),
        };
        hits.push(want.is_none());
        StringTable { hits }
    }

    /// Whether the interned id passes (the absent marker maps to the last entry).
    #[inline]
    fn hit(&self, id: u32) -> bool {
        let last = self.hits.len() - 1;
        self.hits[(id as usize).min(last)]
    }
}

/// The year constraint as an inclusive range; NULL years pass only without any bound.
struct YearRange {
    lo: i32,
    hi: i32,
    null_ok: bool,
}

impl YearRange {
    fn new(min: Option<i32>, max: Option<i32>) -> YearRange {
        YearRange {
            lo: min.unwrap_or(i32::MIN),
            hi: max.unwrap_or(i32::MAX),
            null_ok: min.is_none() && max.is_none(),
        }
    }

    #[inline]
    fn contains(&self, year: Option<i32>) -> bool {
        match year {
            Some(y) => (y >= self.lo) & (y <= self.hi),
            None => self.null_ok,
        }
    }
}

/// The points matching one filter: a bitset over the snapshot's points, and, built on
/// first need, their ascending list and cluster levels.
#[derive(Debug)]
pub struct FilterIndex {
    /// One bit per point of the snapshot.
    pub bits: Vec<u64>,
    /// Number of matching points.
    pub count: usize,
    /// Queries answered with this index so far.
    uses: AtomicU64,
    matched: OnceLock<Vec<u32>>,
    levels: Vec<OnceLock<Level>>,
    mix: OnceLock<MixIndex>,
}

impl FilterIndex {
    /// Resolves `filter` over the snapshot.
    pub fn build(snap: &Snapshot, filter: &Filter) -> FilterIndex {
        let (bits, count) = filter.matching_points(snap);
        FilterIndex {
            bits,
            count,
            uses: AtomicU64::new(0),
            matched: OnceLock::new(),
            levels: (0..=levels::PRE_LEVEL).map(|_| OnceLock::new()).collect(),
            mix: OnceLock::new(),
        }
    }

    /// Matching point indexes, ascending (so Morton-sorted).
    pub fn matched(&self) -> &[u32] {
        self.matched
            .get_or_init(|| set_bits(&self.bits, self.count))
    }

    /// Counts a query; true for the first one.
    pub fn first_use(&self) -> bool {
        self.uses.fetch_add(1, Ordering::Relaxed) == 0
    }

    /// Whether the level `level` is built already.
    pub fn has_level(&self, level: u32) -> bool {
        self.levels
            .get(level as usize)
            .is_some_and(|l| l.get().is_some())
    }

    /// Family counts over ranges of the matching points' positions (built on first need:
    /// only queries asking for the family breakdown use it).
    pub fn mix(&self, snap: &Snapshot) -> &MixIndex {
        self.mix.get_or_init(|| {
            MixIndex::build(
                self.matched()
                    .iter()
                    .map(|&p| snap.mix.at(p as usize))
                    .collect(),
            )
        })
    }

    /// The level `level` (≤ [`levels::PRE_LEVEL`]) over the matching points.
    pub fn level(&self, snap: &Snapshot, level: u32) -> &Level {
        self.levels[level as usize].get_or_init(|| {
            levels::build_level(&snap.points, Selection::List(self.matched()), level)
        })
    }
}

/// Cache of the indexes of recently used filters (at most `capacity`; the least useful
/// one goes when full).
#[derive(Debug)]
pub struct FilterCache(quick_cache::sync::Cache<Filter, Arc<FilterIndex>>);

impl FilterCache {
    /// An empty cache keeping up to `capacity` indexes.
    pub fn new(capacity: usize) -> FilterCache {
        FilterCache(quick_cache::sync::Cache::new(capacity))
    }

    /// The cached index of `filter`, if any (marks it used).
    pub fn get(&self, filter: &Filter) -> Option<Arc<FilterIndex>> {
        self.0.get(filter)
    }

    /// Stores an index, evicting a cold one when full.
    pub fn put(&self, filter: Filter, index: Arc<FilterIndex>) {
        self.0.insert(filter, index);
    }

    /// Drops every cached index.
    pub fn clear(&self) {
        self.0.clear();
    }

    /// Number of cached indexes.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the cache is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Snapshot {
    /// The index of `filter`, from the cache or built now (outside the cache lock).
    pub fn filter_index(&self, filter: &Filter) -> Arc<FilterIndex> {
        if let Some(idx) = self.filters.get(filter) {
            return idx;
        }
        let idx = Arc::new(FilterIndex::build(self, filter));
        if self.keeps_caches() {
            self.filters.put(filter.clone(), idx.clone());
        }
        idx
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The read-out lists exactly the set bits, ascending.
        #[test]
        fn set_bits_lists_every_set_bit_in_order(bits in proptest::collection::vec(any::<u64>(), 0..6)) {
            let want: Vec<u32> = (0..bits.len() as u32 * 64)
                .filter(|&i| bits[i as usize / 64] >> (i % 64) & 1 == 1)
                .collect();
            prop_assert_eq!(set_bits(&bits, want.len()), want);
        }
    }

    #[test]
    fn year_range_excludes_null_years_only_when_bounded() {
        assert!(YearRange::new(None, None).contains(None));
        assert!(!YearRange::new(Some(1990), None).contains(None));
        assert!(YearRange::new(Some(1990), Some(1990)).contains(Some(1990)));
        assert!(!YearRange::new(None, Some(1989)).contains(Some(1990)));
    }
}
