//! The matching policy: name → candidates in the country → region filter → unique,
//! same-spot cluster, dominant by population, or ambiguous. Never a silent guess.

use crate::{Gazetteer, Lookup, Match, NameRef, Place, Query};
use bandmap_fold::fold;

/// The most populous candidate is taken among same-named places only when it has at
/// least this population …
pub const DOMINANCE_MIN_POPULATION: u64 = 50_000;
/// … and at least this many times the population of the next one.
pub const DOMINANCE_RATIO: u64 = 20;
/// The population rule that singles out one of several same-named places left after the
/// region filter: the most populous is taken when it has at least `min_population`
/// inhabitants and at least `ratio` times the next one. [`Dominance::DEFAULT`] is the rule
/// in force; other values exist so the held-out evaluation can compare rules
/// (docs/gazetteer.md records the figures and the decision).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dominance {
    /// Least population of the dominant place.
    pub min_population: u64,
    /// Least ratio of its population to the next candidate's.
    pub ratio: u64,
}

impl Dominance {
    /// The rule in force: ≥ 50,000 inhabitants and ≥ 20× the next.
    pub const DEFAULT: Dominance = Dominance {
        min_population: DOMINANCE_MIN_POPULATION,
        ratio: DOMINANCE_RATIO,
    };
}

/// Candidates all within this distance of the most populous one are one place
/// (a town and its own quarter, a municipality and its seat).
const CLUSTER_KM: f64 = 10.0;
/// Confidence taken off when no country restricts the search.
const NO_COUNTRY_PENALTY: f64 = 0.1;

/// How the region parts of the query were used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RegionUse {
    /// No region part given.
    None,
    /// Region parts given but none is a known region (old or misspelt names).
    Unrecognised,
    /// Every recognised region part contains the place.
    Confirmed,
    /// Only the recognised first-level parts contain it (a county that GeoNames splits
    /// differently, e.g. ceremonial vs unitary in England).
    FirstLevel,
}

/// How a unique place was singled out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pick {
    Unique,
    Cluster,
    Dominant,
}

pub(crate) fn lookup(g: &Gazetteer, q: &Query, dominance: Option<Dominance>) -> Lookup {
    let key = fold(q.city);
    if key.is_empty() {
        return Lookup::NotFound;
    }
    let cc = match q.country_code.map(parse_cc) {
        Some(Some(cc)) => Some(cc),
        Some(None) => return Lookup::NotFound,
        None => None,
    };
    let Some(refs) = g.names.get(key.as_str()) else {
        return Lookup::NotFound;
    };
    let hits: Vec<NameRef> = refs
        .as_slice()
        .iter()
        .copied()
        .filter(|r| cc.is_none_or(|c| place(g, *r).is_some_and(|p| p.cc == c)))
        .collect();
    if hits.is_empty() {
        return Lookup::NotFound;
    }

    let (filtered, region_use) = filter_by_regions(g, q, cc, &hits);
    if filtered.is_empty() {
        // A known region that holds no place of that name: the place is not in our data.
        return Lookup::NotFound;
    }
    let Some((chosen, pick)) = single_out(g, &filtered, dominance) else {
        return Lookup::Ambiguous {
            candidates: filtered.len(),
        };
    };
    let Some(p) = place(g, chosen) else {
        return Lookup::NotFound;
    };
    let (mut confidence, matched_on) = score(region_use, pick, chosen.is_alternate());
    if cc.is_none() {
        confidence -= NO_COUNTRY_PENALTY;
    }
    Lookup::Found(Match {
        geonameid: p.geonameid,
        name: p.name.to_string(),
        admin1: p
            .admin1
            .and_then(|i| g.regions.get(i as usize))
            .map(|r| r.name.to_string()),
        country_code: String::from_utf8_lossy(&p.cc).into_owned(),
        lat: p.lat,
        lon: p.lon,
        population: p.population,
        confidence,
        granularity: "city",
        matched_on,
    })
}

/// Keeps the candidates that lie in every recognised region part.
fn filter_by_regions(
    g: &Gazetteer,
    q: &Query,
    cc: Option<[u8; 2]>,
    hits: &[NameRef],
) -> (Vec<NameRef>, RegionUse) {
    let mut sets: Vec<Vec<u32>> = Vec::new();
    let mut any_text = false;
    for r in q.regions {
        let k = fold(r);
        if k.is_empty() {
            continue;
        }
        any_text = true;
        if let Some(ids) = g.region_names.get(k.as_str()) {
            let set: Vec<u32> = ids
                .iter()
                .copied()
                .filter(|&i| {
                    cc.is_none_or(|c| g.regions.get(i as usize).is_some_and(|r| r.cc == c))
                })
                .collect();
            if !set.is_empty() {
                sets.push(set);
            }
        }
    }
    if sets.is_empty() {
        let use_ = if any_text {
            RegionUse::Unrecognised
        } else {
            RegionUse::None
        };
        return (hits.to_vec(), use_);
    }
    let keep = |sets: &[Vec<u32>]| -> Vec<NameRef> {
        hits.iter()
            .copied()
            .filter(|r| {
                place(g, *r).is_some_and(|p| {
                    let regions = g.place_regions(p);
                    sets.iter().all(|s| regions.iter().any(|x| s.contains(x)))
                })
            })
            .collect()
    };
    let all = keep(&sets);
    if !all.is_empty() {
        return (all, RegionUse::Confirmed);
    }
    let first_level: Vec<Vec<u32>> = sets
        .iter()
        .map(|s| {
            s.iter()
                .copied()
                .filter(|&i| g.regions.get(i as usize).is_some_and(|r| r.level == 1))
                .collect::<Vec<_>>()
        })
        .filter(|s| !s.is_empty())
        .collect();
    if first_level.is_empty() || first_level == sets {
        return (Vec::new(), RegionUse::Confirmed);
    }
    (keep(&first_level), RegionUse::FirstLevel)
}

/// One candidate, a cluster of candidates at one spot, or a dominant one; else None.
fn single_out(
    g: &Gazetteer,
    cands: &[NameRef],
    dominance: Option<Dominance>,
) -> Option<(NameRef, Pick)> {
    let mut sorted: Vec<(NameRef, &Place)> = cands
        .iter()
        .filter_map(|r| place(g, *r).map(|p| (*r, p)))
        .collect();
    sorted.sort_by(|a, b| {
        b.1.population
            .cmp(&a.1.population)
            .then(a.0.is_alternate().cmp(&b.0.is_alternate()))
    });
    let (&(top_ref, top), rest) = sorted.split_first()?;
    if rest.is_empty() {
        return Some((top_ref, Pick::Unique));
    }
    if rest
        .iter()
        .all(|(_, p)| haversine_km(top.lat, top.lon, p.lat, p.lon) <= CLUSTER_KM)
    {
        return Some((top_ref, Pick::Cluster));
    }
    let d = dominance?;
    let second = rest.first().map_or(0, |(_, p)| p.population);
    if top.population >= d.min_population && top.population >= second.saturating_mul(d.ratio) {
        return Some((top_ref, Pick::Dominant));
    }
    None
}

/// The confidence table of docs/gazetteer.md.
fn score(region: RegionUse, pick: Pick, alternate: bool) -> (f64, &'static str) {
    let (base, on) = match (pick, region, alternate) {
        (Pick::Dominant, RegionUse::Confirmed | RegionUse::FirstLevel, _) => {
            (0.8, "name+region+population")
        }
        (Pick::Dominant, _, _) => (0.75, "name+population"),
        (_, RegionUse::Confirmed, false) => (0.95, "name+region"),
        (_, RegionUse::Confirmed, true) => (0.9, "alternate+region"),
        (_, RegionUse::FirstLevel, false) => (0.85, "name+admin1"),
        (_, RegionUse::FirstLevel, true) => (0.8, "alternate+admin1"),
        (_, RegionUse::None, false) => (0.9, "name"),
        (_, RegionUse::None, true) => (0.85, "alternate"),
        (_, RegionUse::Unrecognised, false) => (0.85, "name"),
        (_, RegionUse::Unrecognised, true) => (0.8, "alternate"),
    };
    let cluster_penalty = if pick == Pick::Cluster { 0.05 } else { 0.0 };
    (base - cluster_penalty, on)
}

fn place(g: &Gazetteer, r: NameRef) -> Option<&Place> {
    g.places.get(r.place() as usize)
}

fn parse_cc(s: &str) -> Option<[u8; 2]> {
    match s.trim().as_bytes() {
        &[a, b] if a.is_ascii_alphabetic() && b.is_ascii_alphabetic() => {
            Some([a.to_ascii_uppercase(), b.to_ascii_uppercase()])
        }
        _ => None,
    }
}

/// Great-circle distance in km.
pub fn haversine_km(lat1: f64, lon1: f64, lat2: f64, lon2: f64) -> f64 {
    let (p1, p2) = (lat1.to_radians(), lat2.to_radians());
    let dp = (lat2 - lat1).to_radians();
    let dl = (lon2 - lon1).to_radians();
    let a = (dp / 2.0).sin().powi(2) + p1.cos() * p2.cos() * (dl / 2.0).sin().powi(2);
    2.0 * 6371.0 * a.sqrt().min(1.0).asin()
}
