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

/// Feeds every field of a row to a content hash (floats by their bits).
fn hash_row(r: &PointRow, h: &mut impl Hasher) {
    r.location_id.hash(h);
    r.ma_id.hash(h);
    r.lon.to_bits().hash(h);
    r.lat.to_bits().hash(h);
    r.step_order.hash(h);
    r.step_label.hash(h);
    r.location_raw.hash(h);
    r.name.hash(h);
    r.genre.hash(h);
    r.country.hash(h);
    r.country_code.hash(h);
    r.status.hash(h);
    r.formed_year.hash(h);
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
}

impl Snapshot {
    /// Builds the snapshot from source rows.
    pub fn build(version: i64, mut rows: Vec<PointRow>) -> Snapshot {
        let mut strings = Interner::default();
        let mut texts = TextArena::default();
        let mut bands = Bands::default();
        let mut band_of: std::collections::HashMap<i64, u32> = Default::default();
        let mut family_of = FamilyOfGenre::default();
        let mut keyed: Vec<(u64, i64, usize)> = rows
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let m = grid::morton(grid::cell_x(r.lon), grid::cell_y(r.lat));
                (m, r.location_id, i)
            })
            .collect();
        keyed.sort_unstable();
        let mut points = Points::default();
        // Stable across processes of one build (`DefaultHasher::new` has fixed keys), which
        // is what replicas sharing ETags need.
        let mut fp = std::hash::DefaultHasher::new();
        env!("CARGO_PKG_VERSION").hash(&mut fp);
        for &(m, _, i) in &keyed {
            let r = &mut rows[i];
            hash_row(r, &mut fp);
            let band = *band_of.entry(r.ma_id).or_insert_with(|| {
                let idx = bands.ma_id.len() as u32;
                bands.ma_id.push(r.ma_id);
                bands.name.push(texts.push(&r.name));
                bands.genre.push(strings.intern_opt(r.genre.as_deref()));
                bands.country.push(strings.intern_opt(r.country.as_deref()));
                bands
                    .country_code
                    .push(strings.intern_opt(r.country_code.as_deref()));
                bands.status.push(strings.intern_opt(r.status.as_deref()));
                bands.formed_year.push(r.formed_year);
                bands
                    .family
                    .push(family_of.of(&mut strings, r.genre.as_deref()));
                idx
            });
            points.lon.push(r.lon);
            points.lat.push(r.lat);
            points.morton.push(m);
            points.band.push(band);
            points.location_id.push(r.location_id);
            points.step_order.push(r.step_order);
            points
                .step_label
                .push(strings.intern_opt(r.step_label.as_deref()));
            points.location_raw.push(texts.push(&r.location_raw));
        }
        drop(rows);
        let bands = bands.grouped_by_genre(&mut points.band);
        let band_points = Groups::build(
            bands.ma_id.len(),
            points.band.iter().enumerate().map(|(i, &b)| (b, i as u32)),
        );
        let genre_bands = Groups::build(
            strings.len(),
            bands.genre.iter().enumerate().map(|(j, &g)| (g, j as u32)),
        );
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
        }
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
    fn of(&mut self, strings: &mut Interner, genre: Option<&str>) -> u8 {
        let id = strings.intern_opt(genre);
        *self
            .0
            .entry(id)
            .or_insert_with(|| Family::of_genre(genre) as u8)
}
