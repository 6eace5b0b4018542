//! The columnar snapshot of every mappable point: points sorted by Morton code, band
//! columns with interned strings, the precomputed unfiltered cluster levels and the cache
//! of filter indexes. Immutable once built; a refresh builds a new one.

use crate::map::family::{Family, MixIndex};
use crate::map::filter::FilterCache;
use crate::map::grid;
use crate::map::groups::Groups;
use crate::map::intern::{Interner, NONE, TextArena};
use crate::map::levels::{self, Level};
pub use bandmap_db::map_points::PointRow;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};

/// Source rows packed as they are read: short values interned, texts in one arena, ~70
/// bytes a row instead of a [`PointRow`]'s seven owned strings (~450 bytes with the
/// allocator's overhead). The load hands each row here as it is decoded, so the rows of a
/// rebuild never exist as owned strings together (docs/performance.md "Serve memory").
#[derive(Debug, Default)]
pub struct Staged {
    rows: Vec<StagedRow>,
    strings: Interner,
    texts: TextArena,
}

/// One packed source row.
#[derive(Debug, Clone, Copy)]
struct StagedRow {
    location_id: i64,
    ma_id: i64,
    lon: f64,
    lat: f64,
    step_order: i32,
    parsed_step: i32,
    formed_year: Option<i32>,
    step_label: u32,
    location_raw: u32,
    name: u32,
    genre: u32,
    country: u32,
    country_code: u32,
    status: u32,
}

impl Staged {
    /// Room for `rows` rows before the row list grows: a rebuild sizes it from the snapshot
    /// it replaces, so the list is not doubled (and copied) on the way to ~150,000 rows,
    /// which at 72 bytes a row held ~19 MB for 11 MB of rows at the peak of a rebuild.
    pub fn with_capacity(rows: usize) -> Staged {
        Staged {
            rows: Vec::with_capacity(rows),
            ..Staged::default()
        }
    }

    /// Packs one row (its strings are freed when it is dropped here).
    pub fn push(&mut self, r: PointRow) {
        let s = &mut self.strings;
        let row = StagedRow {
            location_id: r.location_id,
            ma_id: r.ma_id,
            lon: r.lon,
            lat: r.lat,
            step_order: r.step_order,
            parsed_step: r.parsed_step,
            formed_year: r.formed_year,
            step_label: s.intern_opt(r.step_label.as_deref()),
            location_raw: self.texts.push(&r.location_raw),
            name: self.texts.push(&r.name),
            genre: s.intern_opt(r.genre.as_deref()),
            country: s.intern_opt(r.country.as_deref()),
            country_code: s.intern_opt(r.country_code.as_deref()),
            status: s.intern_opt(r.status.as_deref()),
        };
        self.rows.push(row);
    }

    /// Rows packed.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether no row was packed.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

impl StagedRow {
    /// Feeds every field of the source row to a content hash, in the row's column order
    /// (floats by their bits; texts hash as the strings they were).
    fn hash_content(&self, strings: &Interner, texts: &TextArena, h: &mut impl Hasher) {
        let opt = |id: u32| (id != NONE).then(|| strings.get(id));
        self.location_id.hash(h);
        self.ma_id.hash(h);
        self.lon.to_bits().hash(h);
        self.lat.to_bits().hash(h);
        self.step_order.hash(h);
        self.parsed_step.hash(h);
        opt(self.step_label).hash(h);
        texts.get(self.location_raw).hash(h);
        texts.get(self.name).hash(h);
        opt(self.genre).hash(h);
        opt(self.country).hash(h);
        opt(self.country_code).hash(h);
        opt(self.status).hash(h);
        self.formed_year.hash(h);
    }
}

/// Band columns (one entry per band with at least one point).
#[derive(Debug, Default)]
pub struct Bands {
    /// Upstream id.
    pub ma_id: Vec<i64>,
    /// Name (arena index).
    pub name: Vec<u32>,
    /// Interned genre.
    pub genre: Vec<u32>,
    /// Interned country name.
    pub country: Vec<u32>,
    /// Interned country code.
    pub country_code: Vec<u32>,
    /// Interned status.
    pub status: Vec<u32>,
    /// Formation year.
    pub formed_year: Vec<Option<i32>>,
    /// Genre family (`Family as u8`, derived from the genre text).
    pub family: Vec<u8>,
}

impl Bands {
    /// The same bands renumbered so that bands of one genre are contiguous (`point_band`
    /// is rewritten to the new numbers). A genre filter then reads the band columns and
    /// the per-band point lists as a few sequential runs instead of one cache miss per
    /// band in each column (profiled: those misses were most of a new filter's cost).
    fn grouped_by_genre(self, point_band: &mut [u32]) -> Bands {
        let mut order: Vec<u32> = (0..self.ma_id.len() as u32).collect();
        order.sort_by_key(|&j| self.genre[j as usize]);
        let mut new_of = vec![0u32; order.len()];
        for (new, &old) in order.iter().enumerate() {
            new_of[old as usize] = new as u32;
        }
        for b in point_band.iter_mut() {
            *b = new_of[*b as usize];
        }
        fn permute<T: Copy>(column: &[T], order: &[u32]) -> Vec<T> {
            order.iter().map(|&old| column[old as usize]).collect()
        }
        Bands {
            ma_id: permute(&self.ma_id, &order),
            name: permute(&self.name, &order),
            genre: permute(&self.genre, &order),
            country: permute(&self.country, &order),
            country_code: permute(&self.country_code, &order),
            status: permute(&self.status, &order),
            formed_year: permute(&self.formed_year, &order),
            family: permute(&self.family, &order),
        }
    }
}

/// Point columns, sorted by (Morton code, location id).
#[derive(Debug, Default)]
pub struct Points {
    /// Longitude.
    pub lon: Vec<f64>,
    /// Latitude.
    pub lat: Vec<f64>,
    /// Finest-level Morton code.
    pub morton: Vec<u64>,
    /// Index into [`Bands`].
    pub band: Vec<u32>,
    /// `band_locations.id`.
    pub location_id: Vec<i64>,
    /// Step order.
    pub step_order: Vec<i32>,
    /// Interned step label.
    pub step_label: Vec<u32>,
    /// Raw location (arena index).
    pub location_raw: Vec<u32>,
}

impl Points {
    fn with_capacity(n: usize) -> Points {
        Points {
            lon: Vec::with_capacity(n),
            lat: Vec::with_capacity(n),
            morton: Vec::with_capacity(n),
            band: Vec::with_capacity(n),
            location_id: Vec::with_capacity(n),
            step_order: Vec::with_capacity(n),
            step_label: Vec::with_capacity(n),
            location_raw: Vec::with_capacity(n),
        }
    }
}

/// The immutable snapshot.
#[derive(Debug)]
pub struct Snapshot {
    /// Value of `map_data_version` read with the rows.
    pub version: i64,
    /// Hash of the content (every row in snapshot order, and the crate version because the
    /// answers' format belongs to the build). HTTP validators are built from it, not from
    /// `version`: a snapshot can be rebuilt with new rows under an unchanged counter (a
    /// writer in flight at load time commits later), and replicas may hold different rows
    /// under one counter value; equal content gives equal validators on every replica.
    pub fingerprint: u64,
    /// Writers in flight when the rows were read (see `load::is_stale`).
    pub pending_xids: Vec<i64>,
    /// Points.
    pub points: Points,
    /// Bands.
    pub bands: Bands,
    /// Interned short strings (genre, country, code, status, step label).
    pub strings: Interner,
    /// Long strings (names, raw locations).
    pub texts: TextArena,
    /// The points of each band (ascending point indexes).
    pub band_points: Groups,
    /// The bands of each interned genre string (bands without a genre are in none).
    pub genre_bands: Groups,
    /// Unfiltered cluster levels `0..=PRE_LEVEL`.
    pub levels: Vec<Level>,
    /// Filter indexes, most recently used kept.
    pub filters: FilterCache,
    /// GeoJSON answers of recent queries.
    pub bodies: crate::map::bodies::BodyCache,
    /// Family of each point (its band's) and family counts over point ranges.
    pub mix: MixIndex,
    /// The path segments of every band (docs/map.md "Flows") and the kept flow answers.
    pub flows: crate::map::flows::FlowIndex,
    /// Cleared when a rebuild starts: the filter indexes and bodies are dropped and no
    /// new ones are kept (see [`Snapshot::retire_caches`]).
    retiring: AtomicBool,
}

impl Snapshot {
    /// Builds the snapshot from source rows.
    pub fn build(version: i64, rows: Vec<PointRow>) -> Snapshot {
        let mut staged = Staged::default();
        for r in rows {
            staged.push(r);
        }
        Snapshot::from_staged(version, staged)
    }

    /// Builds the snapshot from rows packed as they were read (`load.rs`).
    pub fn from_staged(version: i64, staged: Staged) -> Snapshot {
        let Staged {
            rows,
            strings,
            texts,
        } = staged;
        // Point columns sized once (no doubling): a rebuild runs beside the snapshot in
        // use, so its transient memory is the serve process's peak (docs/performance.md).
        let mut bands = Bands::default();
        let mut band_of: std::collections::HashMap<i64, u32> =
            std::collections::HashMap::with_capacity(rows.len());
        let mut family_of = FamilyOfGenre::default();
        let mut keyed: Vec<(u64, i64, u32)> = rows
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let m = grid::morton(grid::cell_x(r.lon), grid::cell_y(r.lat));
                (m, r.location_id, i as u32)
            })
            .collect();
        keyed.sort_unstable();
        let mut points = Points::with_capacity(rows.len());
        // The parser's step of each point, only for ordering the bands' paths below.
        let mut path_step: Vec<i32> = Vec::with_capacity(rows.len());
        // Stable across processes of one build (`DefaultHasher::new` has fixed keys), which
        // is what replicas sharing ETags need.
        let mut fp = std::hash::DefaultHasher::new();
        env!("CARGO_PKG_VERSION").hash(&mut fp);
        for &(m, _, i) in &keyed {
            let r = &rows[i as usize];
            r.hash_content(&strings, &texts, &mut fp);
            let band = *band_of.entry(r.ma_id).or_insert_with(|| {
                let idx = bands.ma_id.len() as u32;
                bands.ma_id.push(r.ma_id);
                bands.name.push(r.name);
                bands.genre.push(r.genre);
                bands.country.push(r.country);
                bands.country_code.push(r.country_code);
                bands.status.push(r.status);
                bands.formed_year.push(r.formed_year);
                bands.family.push(family_of.of(&strings, r.genre));
                idx
            });
            points.lon.push(r.lon);
            points.lat.push(r.lat);
            points.morton.push(m);
            points.band.push(band);
            points.location_id.push(r.location_id);
            points.step_order.push(r.step_order);
            path_step.push(r.parsed_step);
            points.step_label.push(r.step_label);
            points.location_raw.push(r.location_raw);
        }
        drop((rows, keyed, band_of));
        let bands = bands.grouped_by_genre(&mut points.band);
        let band_points = Groups::build(
            bands.ma_id.len(),
            points.band.iter().enumerate().map(|(i, &b)| (b, i as u32)),
        );
        let genre_bands = Groups::build(
            strings.len(),
            bands.genre.iter().enumerate().map(|(j, &g)| (g, j as u32)),
        );
        let flows = crate::map::flows::FlowIndex::build(&points, &band_points, &path_step);
        drop(path_step);
        let mix = MixIndex::build(
            points
                .band
                .iter()
                .map(|&b| bands.family[b as usize])
                .collect(),
        );
        let all = levels::Selection::All(points.lon.len());
        let levels = (0..=levels::PRE_LEVEL)
            .map(|g| levels::build_level(&points, all, g))
            .collect();
        Snapshot {
            version,
            fingerprint: fp.finish(),
            pending_xids: Vec::new(),
            points,
            bands,
            strings,
            texts,
            band_points,
            genre_bands,
            levels,
            filters: FilterCache::new(crate::map::filter::CACHE_CAPACITY),
            bodies: Default::default(),
            mix,
            flows,
            retiring: AtomicBool::new(false),
        }
    }

    /// Drops the cached filter indexes and answers and keeps no new ones: called on the
    /// snapshot in use when its successor starts to build, so the two never hold caches
    /// together (the successor starts empty anyway). Queries still answer, uncached.
    pub fn retire_caches(&self) {
        self.retiring.store(true, Ordering::Release);
        self.filters.clear();
        self.bodies.clear();
        self.flows.clear_bodies();
    }

    /// Keeps caches again (the rebuild that retired them failed: this snapshot stays).
    pub fn keep_caches_again(&self) {
        self.retiring.store(false, Ordering::Release);
    }

    /// Whether new filter indexes and answers are kept.
    pub fn keeps_caches(&self) -> bool {
        !self.retiring.load(Ordering::Acquire)
    }

    /// An empty snapshot (before the first load).
    pub fn empty() -> Snapshot {
        Snapshot::build(0, Vec::new())
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.points.lon.len()
    }

    /// Whether there is no point.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// An interned string, `None` for the absent marker.
    pub fn string(&self, id: u32) -> Option<&str> {
        (id != NONE).then(|| self.strings.get(id))
    }

    /// Bytes held by the columns (an estimate of the snapshot's memory).
    pub fn approx_bytes(&self) -> usize {
        let p = &self.points;
        let per_point = 8 + 8 + 8 + 4 + 8 + 4 + 4 + 4;
        let per_band = 8 + 4 * 5 + 8 + 1;
        let cells: usize = self.levels.iter().map(|l| l.cells.len()).sum();
        p.lon.len() * per_point
            + self.bands.ma_id.len() * per_band
            + self.texts.bytes()
            + self.strings.bytes()
            + self.band_points.bytes()
            + self.genre_bands.bytes()
            + cells * std::mem::size_of::<levels::Cell>()
            + self.mix.bytes()
            + self.flows.bytes()
    }

    /// The genre family of band `band`.
    pub fn band_family(&self, band: u32) -> Family {
        Family::from_index(
            self.bands
                .family
                .get(band as usize)
                .copied()
                .unwrap_or(Family::Other as u8),
        )
    }
}

/// The family of each interned genre, derived once per distinct genre text.
#[derive(Default)]
struct FamilyOfGenre(std::collections::HashMap<u32, u8>);

impl FamilyOfGenre {
    fn of(&mut self, strings: &Interner, genre: u32) -> u8 {
        *self
            .0
            .entry(genre)
            .or_insert_with(|| Family::of_genre((genre != NONE).then(|| strings.get(genre))) as u8)
    }
}
