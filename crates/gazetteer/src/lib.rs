//! Offline gazetteer of European places built from GeoNames data: loading and matching.
//! No I/O beyond reading its file; no async, no database.
//!
//! The file is produced by `scripts/fetch-gazetteer.sh` (format and the matching policy:
//! `docs/gazetteer.md`). [`Gazetteer::lookup`] never guesses: a name shared by several
//! places that the region part does not single out is [`Lookup::Ambiguous`].

mod area;
mod candidates;
mod error;
pub mod eval;
mod hash;
mod load;
mod matcher;
mod names;
mod near;
mod region_only;
mod tables;

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

pub use bandmap_fold::fold;
pub use candidates::Candidate;
pub use error::GazetteerError;
pub use matcher::{
    DOMINANCE_MIN_POPULATION, DOMINANCE_RATIO, Dominance, Rules, TOWN_MIN_POPULATION,
    TOWN_OVER_VILLAGES_RATIO, TWO_TOWNS_MAX_KM, haversine_km,
};

/// Compact in-memory index of the gazetteer file.
#[derive(Debug, Default)]
pub struct Gazetteer {
    places: Vec<Place>,
    /// Region indices referenced by places (`Place::regions_start..+regions_len`).
    region_refs: Vec<u32>,
    regions: Vec<Region>,
    /// Folded place name or alternate -> places.
    names: hash::FastMap<Box<str>, Refs>,
    /// Folded region name or alias -> regions.
    region_names: hash::FastMap<Box<str>, Vec<u32>>,
    /// Per region (same index as `regions`), the box its places span (issue 30).
    areas: Vec<area::Area>,
    /// Rows of the built-in name tables the loaded data could not apply.
    table_misses: Vec<String>,
    /// Places read from the GeoNames file (the table's former municipalities follow them).
    geonames_len: usize,
}

#[derive(Debug)]
struct Place {
    geonameid: i64,
    name: Box<str>,
    cc: [u8; 2],
    admin1: Option<u32>,
    regions_start: u32,
    regions_len: u8,
    lat: f64,
    lon: f64,
    population: u64,
    /// A former municipality placed at its seat from the built-in table (issue 30), not a
    /// GeoNames record.
    former: bool,
}

#[derive(Debug)]
struct Region {
    cc: [u8; 2],
    level: u8,
    name: Box<str>,
}

/// The places of one name key; most keys name a single place, so no Vec for those.
#[derive(Debug, Clone)]
enum Refs {
    One(NameRef),
    Many(Vec<NameRef>),
}

impl Refs {
    fn as_slice(&self) -> &[NameRef] {
        match self {
            Refs::One(r) => std::slice::from_ref(r),
            Refs::Many(v) => v,
        }
    }

    /// Adds a place; one entry per place, a primary-name hit wins over an alternate.
    fn add(&mut self, r: NameRef) {
        match self {
            Refs::One(e) if e.place() == r.place() => {
                if !r.is_alternate() {
                    *e = r;
                }
            }
            Refs::One(e) => *self = Refs::Many(vec![*e, r]),
            Refs::Many(v) => match v.iter_mut().find(|e| e.place() == r.place()) {
                Some(e) if !r.is_alternate() => *e = r,
                Some(_) => {}
                None => v.push(r),
            },
        }
    }
}

/// A place index whose top bit says "matched through an alternate name".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct NameRef(u32);

impl NameRef {
    const ALT: u32 = 1 << 31;
    fn primary(place: u32) -> Self {
        Self(place & !Self::ALT)
    }
    fn alternate(place: u32) -> Self {
        Self(place | Self::ALT)
    }
    fn place(self) -> u32 {
        self.0 & !Self::ALT
    }
    fn is_alternate(self) -> bool {
        self.0 & Self::ALT != 0
    }
}

/// What to look up: the city part of a location and the region parts after it, as
/// written upstream (`"Harlow"`, `["Essex", "England"]`).
#[derive(Debug, Clone, Copy)]
pub struct Query<'a> {
    /// Place name, any case or accents.
    pub city: &'a str,
    /// Region parts, most specific first; unknown ones are ignored.
    pub regions: &'a [String],
    /// ISO 3166-1 alpha-2 code; when given, only places of that country match.
    pub country_code: Option<&'a str>,
}

/// The answer of a lookup.
#[derive(Debug, Clone, PartialEq)]
pub enum Lookup {
    /// One place, with how sure we are.
    Found(Match),
    /// Several places fit and nothing singles one out.
    Ambiguous {
        /// How many places fit.
        candidates: usize,
    },
    /// The text names a region of the country, not a town ("Uusimaa", "East Sussex"):
    /// never a place; the card and the console say "région seulement".
    RegionOnly {
        /// The region's name in the gazetteer.
        region: String,
    },
    /// No place of that name (in that country / region).
    NotFound,
}

/// A resolved place.
#[derive(Debug, Clone, PartialEq)]
pub struct Match {
    /// GeoNames id.
    pub geonameid: i64,
    /// GeoNames main name.
    pub name: String,
    /// First-level subdivision name (for GB the nation, e.g. "England").
    pub admin1: Option<String>,
    /// ISO 3166-1 alpha-2 code.
    pub country_code: String,
    /// Latitude, WGS84 degrees.
    pub lat: f64,
    /// Longitude, WGS84 degrees.
    pub lon: f64,
    /// GeoNames population (0 when unknown).
    pub population: u64,
    /// 0..1; ≥ 0.7 only for matches we stake correctness on (table in docs/gazetteer.md).
    pub confidence: f64,
    /// Always "city" for now (the file holds populated places only).
    pub granularity: &'static str,
    /// How it matched: "name+region", "alternate+region", "name", "alternate",
    /// "name+admin1", "name+population", "name+region+population", "name+town" (the part
    /// after the city named another town nearby: "Torres Vedras, Odivelas"); issue 30:
    /// "name+area" (the town lies within the area of the county named), "near+region" /
    /// "near" (a near spelling), "former" / "former+region" (a former municipality).
    pub matched_on: &'static str,
}

impl Gazetteer {
    /// Loads the gazetteer file built by `scripts/fetch-gazetteer.sh`.
    pub fn load(path: &Path) -> Result<Gazetteer, GazetteerError> {
        let f = File::open(path)?;
        Self::from_reader(BufReader::with_capacity(1 << 20, f))
    }

    /// Builds the index from any reader in the file format (tests use tiny inline data),
    /// with the built-in tables of issue 30 applied.
    pub fn from_reader(r: impl BufRead) -> Result<Gazetteer, GazetteerError> {
        let mut g = load::parse(r)?;
        g.geonames_len = g.places.len();
        tables::apply(&mut g);
        g.areas = area::compute(&g);
        Ok(g)
    }

    /// [`Gazetteer::load`] without the built-in tables (counties, renamings, former
    /// municipalities): the GeoNames file alone, for the evaluations' "before" figures.
    pub fn load_geonames_only(path: &Path) -> Result<Gazetteer, GazetteerError> {
        let f = File::open(path)?;
        let mut g = load::parse(BufReader::with_capacity(1 << 20, f))?;
        g.geonames_len = g.places.len();
        g.areas = area::compute(&g);
        Ok(g)
    }

    /// Rows of the built-in tables (counties, renamings, former municipalities, in
    /// `crates/gazetteer/data/`) that the loaded data could not apply: a county naming a
    /// region the file lacks, a renaming whose town is absent, a former municipality with
    /// no GeoNames place near its seat. Empty on the real data (a test checks it).
    pub fn table_misses(&self) -> &[String] {
        &self.table_misses
    }

    /// The region a text names when it names a region of the country rather than a town
    /// ("Uusimaa", "East Sussex, England"): see [`Lookup::RegionOnly`].
    pub fn region_only(&self, q: &Query) -> Option<String> {
        region_only::region_only(self, q, q.country_code.and_then(matcher::parse_cc))
    }

    /// Looks a place up; see the module docs and docs/gazetteer.md for the policy.
    pub fn lookup(&self, q: &Query) -> Lookup {
        matcher::lookup(self, q, &Rules::DEFAULT)
    }

    /// [`Gazetteer::lookup`] with another population rule (`None`: never single out by
    /// population). For evaluating rules; the service uses [`Gazetteer::lookup`].
    pub fn lookup_with(&self, q: &Query, dominance: Option<Dominance>) -> Lookup {
        let rules = Rules {
            dominance,
            ..Rules::DEFAULT
        };
        matcher::lookup(self, q, &rules)
    }

    /// [`Gazetteer::lookup`] under another whole rule set ([`Rules::ISSUE_5`]: before
    /// issue 13). For evaluating rules.
    pub fn lookup_rules(&self, q: &Query, rules: &Rules) -> Lookup {
        matcher::lookup(self, q, rules)
    }

    /// Number of places of the GeoNames file (the former municipalities the built-in
    /// table adds are not counted).
    pub fn len(&self) -> usize {
        self.geonames_len
    }

    /// True when the file held no places.
    pub fn is_empty(&self) -> bool {
        self.geonames_len == 0
    }

    fn place_regions(&self, p: &Place) -> &[u32] {
        let start = p.regions_start as usize;
        self.region_refs
            .get(start..start + usize::from(p.regions_len))
            .unwrap_or(&[])
    }
}

#[cfg(test)]
mod near_lookup_tests;
#[cfg(test)]
mod tests;
