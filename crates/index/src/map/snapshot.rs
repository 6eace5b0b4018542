//! The columnar snapshot of every mappable point: points sorted by Morton code, band
//! columns with interned strings, the precomputed unfiltered cluster levels and the cache
//! of filter indexes. Immutable once built; a refresh builds a new one.

use crate::map::family::{Family, MixIndex};
use crate::map::filter::FilterCache;
use crate::map::grid;
use crate::map::groups::Groups;
use crate::map::intern::{Interner, NONE, TextArena};
use crate::map::levels::{self, Level};
use crate::map::staged::StagedBands;
pub use crate::map::staged::{Staged, StagedSize};
pub use bandmap_db::map_points::PointRow;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};

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
    ///
    /// A rebuild runs beside the snapshot in use, so its transient memory is the serve
    /// process's peak (docs/performance.md "Serve memory"): the staged columns are put in
    /// snapshot order one at a time, each dropped as soon as its sorted copy exists, and
    /// the order itself is a permutation of `u32` (no second copy of the rows).
    pub fn from_staged(version: i64, staged: Staged) -> Snapshot {
        let Staged {
            lon,
            lat,
            location_id,
            step_order,
            parsed_step,
            step_label,
            location_raw,
            band,
            bands: staged_bands,
            variants,
            band_of,
            strings,
            texts,
        } = staged;
        drop(band_of);
        let n = lon.len();
        // Points in (Morton code, location id) order; the arrival index breaks what is
        // left of a tie, as it always did.
        let morton: Vec<u64> = lon
            .iter()
            .zip(&lat)
            .map(|(&x, &y)| grid::morton(grid::cell_x(x), grid::cell_y(y)))
            .collect();
        let mut perm: Vec<u32> = (0..n as u32).collect();
        perm.sort_unstable_by(|&a, &b| {
            let (a, b) = (a as usize, b as usize);
            morton[a]
                .cmp(&morton[b])
                .then(location_id[a].cmp(&location_id[b]))
                .then(a.cmp(&b))
        });
        // The first staged entry of an entry's band id (itself, but for disagreeing rows).
        let first_of = |e: u32| match variants.binary_search_by_key(&e, |v| v.0) {
            Ok(k) => variants[k].1,
            Err(_) => e,
        };
        // Stable across processes of one build (`DefaultHasher::new` has fixed keys), which
        // is what replicas sharing ETags need.
        let mut fp = std::hash::DefaultHasher::new();
        env!("CARGO_PKG_VERSION").hash(&mut fp);
        // A band takes the fields of its first point in snapshot order; `order` lists those
        // points' entries, band by band, in that order.
        const UNSEEN: u32 = u32::MAX;
        let mut new_of: Vec<u32> = vec![UNSEEN; staged_bands.len()];
        let mut order: Vec<u32> = Vec::with_capacity(staged_bands.len() - variants.len());
        {
            let sb = &staged_bands;
            let opt = |id: u32| (id != NONE).then(|| strings.get(id));
            for &i in &perm {
                let i = i as usize;
                let e = band[i];
                let b = e as usize;
                // Every field of the source row, in its column order (floats by their bits;
                // texts hash as the strings they were).
                let h = &mut fp;
                location_id[i].hash(h);
                sb.ma_id[b].hash(h);
                lon[i].to_bits().hash(h);
                lat[i].to_bits().hash(h);
                step_order[i].hash(h);
                parsed_step[i].hash(h);
                opt(step_label[i]).hash(h);
                texts.get(location_raw[i]).hash(h);
                texts.get(sb.name[b]).hash(h);
                opt(sb.genre[b]).hash(h);
                opt(sb.country[b]).hash(h);
                opt(sb.country_code[b]).hash(h);
                opt(sb.status[b]).hash(h);
                sb.formed_year[b].hash(h);
                let first = &mut new_of[first_of(e) as usize];
                if *first == UNSEEN {
                    *first = 0;
                    order.push(e);
                }
            }
        }
        // Bands of one genre contiguous (a stable sort: first-seen order within a genre). A
        // genre filter then reads the band columns and the per-band point lists as a few
        // sequential runs instead of one cache miss per band in each column (profiled:
        // those misses were most of a new filter's cost).
        order.sort_by_key(|&e| staged_bands.genre[e as usize]);
        for (k, &e) in order.iter().enumerate() {
            new_of[first_of(e) as usize] = k as u32;
        }
        let point_band: Vec<u32> = perm
            .iter()
            .map(|&i| new_of[first_of(band[i as usize]) as usize])
            .collect();
        drop((band, new_of));
        // Each column is replaced by its sorted copy before the next one is copied.
        fn permute<T: Copy>(column: Vec<T>, order: &[u32]) -> Vec<T> {
            order.iter().map(|&i| column[i as usize]).collect()
        }
        let points = Points {
            lon: permute(lon, &perm),
            lat: permute(lat, &perm),
            morton: permute(morton, &perm),
            band: point_band,
            location_id: permute(location_id, &perm),
            step_order: permute(step_order, &perm),
            step_label: permute(step_label, &perm),
            location_raw: permute(location_raw, &perm),
        };
        // The parser's step of each point, only for ordering the bands' paths below.
        let path_step = permute(parsed_step, &perm);
        drop(perm);
        let mut family_of = FamilyOfGenre::default();
        let family: Vec<u8> = order
            .iter()
            .map(|&e| family_of.of(&strings, staged_bands.genre[e as usize]))
            .collect();
        let StagedBands {
            ma_id,
            name,
            genre,
            country,
            country_code,
            status,
            formed_year,
        } = staged_bands;
        let bands = Bands {
            ma_id: permute(ma_id, &order),
            name: permute(name, &order),
            genre: permute(genre, &order),
            country: permute(country, &order),
            country_code: permute(country_code, &order),
            status: permute(status, &order),
            formed_year: permute(formed_year, &order),
            family,
        };
        drop(order);
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

    /// Room for staging a successor of about this snapshot's size (a little more, for
    /// growth): see [`Staged::with_capacity`].
    pub fn staging_size(&self) -> StagedSize {
        let more = |n: usize| n + n / 32;
        StagedSize {
            points: more(self.len()),
            bands: more(self.bands.ma_id.len()),
            text_bytes: more(self.texts.text_bytes()),
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
