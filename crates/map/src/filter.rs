//! Query-time filters on band columns and their cached indexes: a filter resolves to the
//! ascending list of matching points (one pass over interned values, then over points),
//! and its cluster levels are built lazily from that list. Indexes of the most recently
//! used filters are kept per snapshot.

use crate::levels::{self, Level, Selection};
use crate::snapshot::Snapshot;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

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
        }
    }

    /// Whether the filter lets every point through.
    pub fn is_empty(&self) -> bool {
        *self == Filter::default()
    }

    /// The matching bands as a bitset (one bit per band: 100,000 bands fit in 12.5 KB, in
    /// L1/L2 for the pass over the points, where a `Vec<bool>` would not) and the number of
    /// points they hold (so the point list is allocated once, at its exact size).
    fn band_mask(&self, snap: &Snapshot) -> (Vec<u64>, usize) {
        let strings = &snap.strings;
        let table = |want: &Option<String>, exact: bool| {
            want.as_ref().map(|w| {
                strings.matching(|s| {
                    if exact {
                        s == w
                    } else {
                        s.contains(w.as_str())
                    }
                })
            })
        };
        let genre = table(&self.genre, false);
        let country = table(&self.country, true);
        let status = table(&self.status, true);
        let hit = |t: &Option<Vec<bool>>, id: u32| match t {
            None => true,
            Some(t) => t.get(id as usize).copied().unwrap_or(false),
        };
        let b = &snap.bands;
        let mut mask = vec![0u64; b.ma_id.len().div_ceil(64)];
        let mut points = 0usize;
        for j in 0..b.ma_id.len() {
            let year_ok = match (self.year_min, self.year_max, b.formed_year[j]) {
                (None, None, _) => true,
                (_, _, None) => false,
                (lo, hi, Some(y)) => lo.is_none_or(|lo| y >= lo) && hi.is_none_or(|hi| y <= hi),
            };
            let ok = year_ok
                && hit(&genre, b.genre[j])
                && (self.country.is_none()
                    || hit(&country, b.country[j])
                    || hit(&country, b.country_code[j]))
                && hit(&status, b.status[j]);
            if ok {
                mask[j / 64] |= 1 << (j % 64);
                points += b.point_count[j] as usize;
            }
        }
        (mask, points)
    }
}

/// The points matching one filter and its lazily built cluster levels.
#[derive(Debug)]
pub struct FilterIndex {
    /// Matching point indexes, ascending (so Morton-sorted).
    pub matched: Vec<u32>,
    levels: Vec<OnceLock<Level>>,
}

impl FilterIndex {
    /// Resolves `filter` over the snapshot.
    pub fn build(snap: &Snapshot, filter: &Filter) -> FilterIndex {
        let (mask, n) = filter.band_mask(snap);
        let mut matched = Vec::with_capacity(n);
        if n > 0 {
            for (i, &b) in snap.points.band.iter().enumerate() {
                if mask[b as usize / 64] & (1 << (b % 64)) != 0 {
                    matched.push(i as u32);
                }
            }
        }
        FilterIndex {
            matched,
            levels: (0..=levels::PRE_LEVEL).map(|_| OnceLock::new()).collect(),
        }
    }

    /// The level `level` (≤ [`levels::PRE_LEVEL`]) over the matching points.
    pub fn level(&self, snap: &Snapshot, level: u32) -> &Level {
        self.levels[level as usize].get_or_init(|| {
            levels::build_level(&snap.points, Selection::List(&self.matched), level)
        })
    }
}

/// Most-recently-used cache of filter indexes.
#[derive(Debug)]
pub struct FilterCache {
    capacity: usize,
    inner: Mutex<CacheInner>,
}

#[derive(Debug, Default)]
struct CacheInner {
    tick: u64,
    map: HashMap<Filter, (Arc<FilterIndex>, u64)>,
}

impl FilterCache {
    /// An empty cache keeping up to `capacity` indexes.
    pub fn new(capacity: usize) -> FilterCache {
        FilterCache {
            capacity,
            inner: Mutex::new(CacheInner::default()),
        }
    }

    /// The cached index of `filter`, if any (marks it used).
    pub fn get(&self, filter: &Filter) -> Option<Arc<FilterIndex>> {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.tick += 1;
        let tick = inner.tick;
        inner.map.get_mut(filter).map(|(idx, used)| {
            *used = tick;
            idx.clone()
        })
    }

    /// Stores an index, evicting the least recently used one when full.
    pub fn put(&self, filter: Filter, index: Arc<FilterIndex>) {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.tick += 1;
        let tick = inner.tick;
        if inner.map.len() >= self.capacity && !inner.map.contains_key(&filter) {
            let oldest = inner
                .map
                .iter()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(k, _)| k.clone());
            if let Some(k) = oldest {
                inner.map.remove(&k);
            }
        }
        inner.map.insert(filter, (index, tick));
    }

    /// Number of cached indexes.
    pub fn len(&self) -> usize {
        self.inner.lock().map(|i| i.map.len()).unwrap_or(0)
    }

    /// Whether the cache is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Snapshot {
    /// The index of `filter`, from the cache or built now (outside the cache lock).
    pub fn filter_index(&self, filter: &Filter) -> Arc<FilterIndex> {
        if let Some(idx) = self.filters.get(filter) {
            return idx;
        }
        let idx = Arc::new(FilterIndex::build(self, filter));
        self.filters.put(filter.clone(), idx.clone());
        idx
    }
}
