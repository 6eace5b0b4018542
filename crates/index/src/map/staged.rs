//! Source rows packed as they are read (`load.rs`), in columns ready to be put in snapshot
//! order by `Snapshot::from_staged`.

use crate::map::intern::{Interner, TextArena};
use bandmap_db::map_points::PointRow;

/// Source rows packed as they are read, straight into columns: the point fields of each row
/// in arrival order (44 bytes a row), the band fields once per band (deduplicated by band
/// id as rows arrive), short values interned, texts in one arena. The load hands each row
/// here as it is decoded, so the rows of a rebuild never exist as owned strings together,
/// and the build permutes these columns one at a time instead of holding a second copy of
/// every row (docs/performance.md "Serve memory").
#[derive(Debug, Default)]
pub struct Staged {
    pub(super) lon: Vec<f64>,
    pub(super) lat: Vec<f64>,
    pub(super) location_id: Vec<i64>,
    pub(super) step_order: Vec<i32>,
    pub(super) parsed_step: Vec<i32>,
    pub(super) step_label: Vec<u32>,
    pub(super) location_raw: Vec<u32>,
    /// Entry in `bands` of each row.
    pub(super) band: Vec<u32>,
    pub(super) bands: StagedBands,
    /// `(entry, first entry of its band id)` of each entry whose fields differ from the first
    /// entry of its band id (rows of one band that disagree; never from one database read),
    /// ascending.
    pub(super) variants: Vec<(u32, u32)>,
    /// Band id → its first entry.
    pub(super) band_of: BandTable,
    pub(super) strings: Interner,
    pub(super) texts: TextArena,
}

/// Room to reserve before staging (a rebuild takes it from the snapshot it replaces).
#[derive(Debug, Clone, Copy, Default)]
pub struct StagedSize {
    /// Rows.
    pub points: usize,
    /// Distinct bands.
    pub bands: usize,
    /// Bytes of long texts (names and raw locations).
    pub text_bytes: usize,
}

/// The band fields of each staged band: one entry per band id, more only for rows of a
/// band that disagree on them (see `Staged::variants`).
#[derive(Debug, Default)]
pub(super) struct StagedBands {
    pub(super) ma_id: Vec<i64>,
    pub(super) name: Vec<u32>,
    pub(super) genre: Vec<u32>,
    pub(super) country: Vec<u32>,
    pub(super) country_code: Vec<u32>,
    pub(super) status: Vec<u32>,
    pub(super) formed_year: Vec<Option<i32>>,
}

impl StagedBands {
    fn with_capacity(n: usize) -> StagedBands {
        StagedBands {
            ma_id: Vec::with_capacity(n),
            name: Vec::with_capacity(n),
            genre: Vec::with_capacity(n),
            country: Vec::with_capacity(n),
            country_code: Vec::with_capacity(n),
            status: Vec::with_capacity(n),
            formed_year: Vec::with_capacity(n),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.ma_id.len()
    }

    /// Whether entry `e` holds exactly these fields (its band id is the caller's).
    fn holds(&self, e: usize, texts: &TextArena, f: &BandFields<'_>) -> bool {
        self.genre[e] == f.genre
            && self.country[e] == f.country
            && self.country_code[e] == f.country_code
            && self.status[e] == f.status
            && self.formed_year[e] == f.formed_year
            && texts.get(self.name[e]) == f.name
    }

    fn push(&mut self, ma_id: i64, name: u32, f: &BandFields<'_>) -> u32 {
        let e = self.ma_id.len() as u32;
        self.ma_id.push(ma_id);
        self.name.push(name);
        self.genre.push(f.genre);
        self.country.push(f.country);
        self.country_code.push(f.country_code);
        self.status.push(f.status);
        self.formed_year.push(f.formed_year);
        e
    }
}

/// The band fields of one incoming row, interned (the name not yet stored).
struct BandFields<'a> {
    name: &'a str,
    genre: u32,
    country: u32,
    country_code: u32,
    status: u32,
    formed_year: Option<i32>,
}

/// Band id → first staged entry, an open-addressing table of entry numbers (4 bytes a slot,
/// the band ids read from `StagedBands::ma_id`): a `HashMap<i64, u32>` of 120,000 bands held
/// ~4 MB during the build.
#[derive(Debug, Default)]
pub(super) struct BandTable {
    slots: Vec<u32>,
    len: usize,
}

impl BandTable {
    const EMPTY: u32 = u32::MAX;

    fn with_capacity(n: usize) -> BandTable {
        BandTable {
            slots: if n == 0 {
                Vec::new()
            } else {
                vec![Self::EMPTY; (2 * n).next_power_of_two()]
            },
            len: 0,
        }
    }

    fn start(ma_id: i64, mask: usize) -> usize {
        ((ma_id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & mask
    }

    fn find(&self, ma_id: i64, ids: &[i64]) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut i = Self::start(ma_id, mask);
        loop {
            match self.slots[i] {
                Self::EMPTY => return None,
                e if ids[e as usize] == ma_id => return Some(e),
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// Adds entry `e` (its band id not yet in the table).
    fn insert(&mut self, e: u32, ids: &[i64]) {
        if 2 * (self.len + 1) > self.slots.len() {
            let old = std::mem::take(&mut self.slots);
            self.slots = vec![Self::EMPTY; (2 * (self.len + 1)).next_power_of_two().max(16)];
            for e in old.into_iter().filter(|&e| e != Self::EMPTY) {
                self.place(e, ids);
            }
        }
        self.place(e, ids);
        self.len += 1;
    }

    fn place(&mut self, e: u32, ids: &[i64]) {
        let mask = self.slots.len() - 1;
        let mut i = Self::start(ids[e as usize], mask);
        while self.slots[i] != Self::EMPTY {
            i = (i + 1) & mask;
        }
        self.slots[i] = e;
    }
}

impl Staged {
    /// Room for `size` before the columns grow: a rebuild sizes them from the snapshot it
    /// replaces, so they are not doubled (and copied) on the way to ~150,000 rows.
    pub fn with_capacity(size: StagedSize) -> Staged {
        let n = size.points;
        Staged {
            lon: Vec::with_capacity(n),
            lat: Vec::with_capacity(n),
            location_id: Vec::with_capacity(n),
            step_order: Vec::with_capacity(n),
            parsed_step: Vec::with_capacity(n),
            step_label: Vec::with_capacity(n),
            location_raw: Vec::with_capacity(n),
            band: Vec::with_capacity(n),
            bands: StagedBands::with_capacity(size.bands),
            variants: Vec::new(),
            band_of: BandTable::with_capacity(size.bands),
            strings: Interner::default(),
            texts: TextArena::with_capacity(n + size.bands, size.text_bytes),
        }
    }

    /// Packs one row (its strings are freed when it is dropped here).
    pub fn push(&mut self, r: PointRow) {
        // Interned in the order the rows were always interned in: equal ids, so equal
        // snapshots (the bands are grouped by genre id).
        let s = &mut self.strings;
        let step_label = s.intern_opt(r.step_label.as_deref());
        let location_raw = self.texts.push(&r.location_raw);
        let fields = BandFields {
            name: &r.name,
            genre: s.intern_opt(r.genre.as_deref()),
            country: s.intern_opt(r.country.as_deref()),
            country_code: s.intern_opt(r.country_code.as_deref()),
            status: s.intern_opt(r.status.as_deref()),
            formed_year: r.formed_year,
        };
        let bands = &mut self.bands;
        let band = match self.band_of.find(r.ma_id, &bands.ma_id) {
            None => {
                let name = self.texts.push(&r.name);
                let e = bands.push(r.ma_id, name, &fields);
                self.band_of.insert(e, &bands.ma_id);
                e
            }
            Some(first) if bands.holds(first as usize, &self.texts, &fields) => first,
            Some(first) => {
                let known = self
                    .variants
                    .iter()
                    .filter(|&&(_, f)| f == first)
                    .map(|&(e, _)| e)
                    .find(|&e| bands.holds(e as usize, &self.texts, &fields));
                match known {
                    Some(e) => e,
                    None => {
                        let name = self.texts.push(&r.name);
                        let e = bands.push(r.ma_id, name, &fields);
                        self.variants.push((e, first));
                        e
                    }
                }
            }
        };
        self.lon.push(r.lon);
        self.lat.push(r.lat);
        self.location_id.push(r.location_id);
        self.step_order.push(r.step_order);
        self.parsed_step.push(r.parsed_step);
        self.step_label.push(step_label);
        self.location_raw.push(location_raw);
        self.band.push(band);
    }

    /// Rows packed.
    pub fn len(&self) -> usize {
        self.lon.len()
    }

    /// Whether no row was packed.
    pub fn is_empty(&self) -> bool {
        self.lon.is_empty()
    }
}
