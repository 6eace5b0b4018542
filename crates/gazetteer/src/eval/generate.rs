//! The seeded generator: the same seed and size give the same rows on any machine
//! (ChaCha8 stream, towns in file order).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::MIN_POPULATION;
use crate::{Gazetteer, Place, fold, haversine_km};

/// Upstream location forms, with their share of the generated rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Form {
    /// `Town` (40 %).
    Town,
    /// `Town, Region`: its first- or second-level subdivision (25 %).
    TownRegion,
    /// `Town, Town`: a neighbouring town of the same country, within 75 km (10 %).
    TownTown,
    /// `Town (early); Town (later)`: two towns of the country (15 %).
    Steps,
    /// `N/A` (5 %): no place.
    NotAvailable,
    /// `Unknown` (5 %): no place.
    Unknown,
}

const WEIGHTS: [(Form, u32); 6] = [
    (Form::Town, 40),
    (Form::TownRegion, 25),
    (Form::TownTown, 10),
    (Form::Steps, 15),
    (Form::NotAvailable, 5),
    (Form::Unknown, 5),
];

/// A `Town, Town` pair is two neighbours: the second lies within this distance.
const NEIGHBOUR_KM: f64 = 75.0;

/// A true town of a row.
#[derive(Debug, Clone, PartialEq)]
pub struct Town {
    /// GeoNames main name, as written in the text.
    pub name: String,
    /// GeoNames id.
    pub geonameid: i64,
    /// Latitude.
    pub lat: f64,
    /// Longitude.
    pub lon: f64,
}

/// One generated band location.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// Row number, from 0.
    pub id: usize,
    /// The form used.
    pub form: Form,
    /// The location text as the upstream writes it.
    pub text: String,
    /// The band's country (ISO 3166-1 alpha-2).
    pub country_code: String,
    /// The towns the text names, in order; empty for `N/A` and `Unknown`.
    pub truth: Vec<Town>,
}

/// `rows` rows from `seed`. Empty when the gazetteer holds no town.
pub fn generate(g: &Gazetteer, seed: u64, rows: usize) -> Vec<Row> {
    let towns: Vec<&Place> = g
        .places
        .iter()
        .filter(|p| p.population > MIN_POPULATION)
        .collect();
    if towns.is_empty() {
        return Vec::new();
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let total: u32 = WEIGHTS.iter().map(|(_, w)| w).sum();
    (0..rows)
        .map(|id| {
            let mut pick = rng.random_range(0..total);
            let form = WEIGHTS
                .iter()
                .find(|(_, w)| {
                    let hit = pick < *w;
                    pick = pick.saturating_sub(*w);
                    hit
                })
                .map_or(Form::Town, |(f, _)| *f);
            let town = towns[rng.random_range(0..towns.len())];
            row(g, &towns, &mut rng, id, form, town)
        })
        .collect()
}

fn row(
    g: &Gazetteer,
    towns: &[&Place],
    rng: &mut ChaCha8Rng,
    id: usize,
    form: Form,
    town: &Place,
) -> Row {
    let cc = String::from_utf8_lossy(&town.cc).into_owned();
    let one = |form: Form, text: String, truth: Vec<Town>| Row {
        id,
        form,
        text,
        country_code: cc.clone(),
        truth,
    };
    let plain = || one(Form::Town, town.name.to_string(), vec![truth(town)]);
    match form {
        Form::Town => plain(),
        Form::NotAvailable => one(form, "N/A".into(), Vec::new()),
        Form::Unknown => one(form, "Unknown".into(), Vec::new()),
        Form::TownRegion => {
            let regions: Vec<&str> = g
                .place_regions(town)
                .iter()
                .filter_map(|&i| g.regions.get(i as usize))
                .map(|r| r.name.as_ref())
                .collect();
            if regions.is_empty() {
                return plain();
            }
            let region = regions[rng.random_range(0..regions.len())];
            one(form, format!("{}, {region}", town.name), vec![truth(town)])
        }
        Form::TownTown => {
            let key = fold(&town.name);
            let near: Vec<&&Place> = towns
                .iter()
                .filter(|p| p.cc == town.cc && fold(&p.name) != key)
                .filter(|p| haversine_km(town.lat, town.lon, p.lat, p.lon) <= NEIGHBOUR_KM)
                .collect();
            if near.is_empty() {
                return plain();
            }
            let other = near[rng.random_range(0..near.len())];
            one(
                form,
                format!("{}, {}", town.name, other.name),
                vec![truth(town), truth(other)],
            )
        }
        Form::Steps => {
            let same: Vec<&&Place> = towns.iter().filter(|p| p.cc == town.cc).collect();
            let later = same[rng.random_range(0..same.len())];
            if later.geonameid == town.geonameid {
                return plain();
            }
            one(
                form,
                format!("{} (early); {} (later)", town.name, later.name),
                vec![truth(town), truth(later)],
            )
        }
    }
}

fn truth(p: &Place) -> Town {
    Town {
        name: p.name.to_string(),
        geonameid: p.geonameid,
        lat: p.lat,
        lon: p.lon,
    }
}
