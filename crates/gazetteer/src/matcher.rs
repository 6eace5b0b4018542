//! The matching policy: name → candidates in the country → region filter → current names
//! before alternates → unique, same-spot cluster, dominant by population, or ambiguous.
//! Never a silent guess. Rules, reasons and figures: docs/gazetteer.md.

use crate::near::{Slip, saint_readings, variants};
use crate::region_only::region_only;
use crate::{Gazetteer, Lookup, Match, NameRef, Place, Query};
use bandmap_fold::fold;

/// The most populous candidate is taken among same-named places only when it has at
/// least this population …
pub const DOMINANCE_MIN_POPULATION: u64 = 50_000;
/// … and at least this many times the population of the next one.
pub const DOMINANCE_RATIO: u64 = 20;
/// A place of at least this population is a town (issue 13): found by its main name it
/// beats places that carry the name only as an alternate or former name, and it is taken
/// over same-named villages (below this population) it outnumbers [`TOWN_OVER_VILLAGES_RATIO`] times.
pub const TOWN_MIN_POPULATION: u64 = 15_000;
/// How many times the largest same-named village a town must outnumber to be taken.
pub const TOWN_OVER_VILLAGES_RATIO: u64 = 5;
/// "Town, Town": the second town must lie within this distance of the first (two towns
/// a band names together are neighbours; farther, the text means something else).
pub const TWO_TOWNS_MAX_KM: f64 = 100.0;
/// Confidence of a place found by its name when the part after it named another town.
const TWO_TOWNS_CONFIDENCE: f64 = 0.85;

/// The population rules that single out one of several same-named places left after the
/// region filter. [`Dominance::DEFAULT`] is the rule in force; other values exist so the
/// evaluations can compare rules (docs/gazetteer.md records the figures and the decision).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dominance {
    /// Big-city rule: least population of the dominant place …
    pub min_population: u64,
    /// … and least ratio of its population to the next candidate's.
    pub ratio: u64,
    /// Town-over-villages rule: a place found by its main name with at least
    /// [`TOWN_MIN_POPULATION`] inhabitants, when every other candidate is a village (below
    /// that), is taken when it has at least this many times the next one's population.
    /// 0 turns the rule off.
    pub town_ratio: u64,
}

impl Dominance {
    /// The rule in force: ≥ 50,000 inhabitants and ≥ 20× the next, or a town ≥ 15,000
    /// found by its main name among villages only, ≥ 5× the largest of them.
    pub const DEFAULT: Dominance = Dominance {
        min_population: DOMINANCE_MIN_POPULATION,
        ratio: DOMINANCE_RATIO,
        town_ratio: TOWN_OVER_VILLAGES_RATIO,
    };
}

/// The whole rule set, so an evaluation can run today's rules against earlier ones in one
/// process. [`Rules::DEFAULT`] is what [`Gazetteer::lookup`] applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    /// Population rules; `None`: several candidates are always ambiguous.
    pub dominance: Option<Dominance>,
    /// A town's main name beats places that carry the name only as an alternate.
    pub current_names_first: bool,
    /// Comma names read whole, and "Town, Town" read as two towns.
    pub comma_rules: bool,
    /// Issue 30's rules for real upstream strings: near spellings confirmed by the region
    /// or the country, "St." expanded, and a region alone never taken for a town. (The
    /// name tables — renamings, former municipalities, counties — are in the index itself
    /// and serve every rule set.)
    pub real_forms: bool,
}

impl Rules {
    /// The rules in force.
    pub const DEFAULT: Rules = Rules {
        dominance: Some(Dominance::DEFAULT),
        current_names_first: true,
        comma_rules: true,
        real_forms: true,
    };
    /// The rules of issue 13, before issue 30.
    pub const ISSUE_13: Rules = Rules {
        real_forms: false,
        ..Rules::DEFAULT
    };
    /// The rules of issue 5, before issue 13: big-city dominance only, alternates on a par
    /// with main names, every comma a region.
    pub const ISSUE_5: Rules = Rules {
        dominance: Some(Dominance {
            min_population: DOMINANCE_MIN_POPULATION,
            ratio: DOMINANCE_RATIO,
            town_ratio: 0,
        }),
        current_names_first: false,
        comma_rules: false,
        real_forms: false,
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
    /// No recognised region holds it, but it lies within the area their places span
    /// (issue 30: a county named by a band that GeoNames splits differently).
    Within,
}

/// How a unique place was singled out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pick {
    Unique,
    Cluster,
    Dominant,
}

pub(crate) fn lookup(g: &Gazetteer, q: &Query, rules: &Rules) -> Lookup {
    let cc = match q.country_code.map(parse_cc) {
        Some(Some(cc)) => Some(cc),
        Some(None) => return Lookup::NotFound,
        None => None,
    };
    let answer = lookup_exact(g, q, cc, rules);
    if rules.real_forms {
        real_forms(g, q, cc, rules, answer)
    } else {
        answer
    }
}

/// Issue 30's rules after the exact lookup: a region alone is no town; an unknown name
/// may be "St." written out, or a near spelling one place confirms.
fn real_forms(
    g: &Gazetteer,
    q: &Query,
    cc: Option<[u8; 2]>,
    rules: &Rules,
    answer: Lookup,
) -> Lookup {
    let confirmed_by_region = matches!(&answer, Lookup::Found(m) if region_confirmed(m));
    if !confirmed_by_region && let Some(region) = region_only(g, q, cc) {
        return Lookup::RegionOnly { region };
    }
    if answer != Lookup::NotFound {
        return answer;
    }
    let mut saints: Vec<Match> = Vec::new();
    for reading in saint_readings(q.city) {
        let q2 = Query {
            city: &reading,
            regions: q.regions,
            country_code: q.country_code,
        };
        match lookup_exact(g, &q2, cc, rules) {
            Lookup::Found(m) => {
                if !saints.iter().any(|s| s.geonameid == m.geonameid) {
                    saints.push(m);
                }
            }
            Lookup::Ambiguous { candidates } => return Lookup::Ambiguous { candidates },
            Lookup::NotFound | Lookup::RegionOnly { .. } => {}
        }
    }
    match saints.len() {
        0 => near_spelling(g, q, cc).unwrap_or(answer),
        1 => saints.pop().map_or(answer, Lookup::Found),
        n => Lookup::Ambiguous { candidates: n },
    }
}

/// Whether the match was confirmed by a region part of the text.
fn region_confirmed(m: &Match) -> bool {
    ["region", "admin1", "area"]
        .iter()
        .any(|w| m.matched_on.contains(w))
}

/// A near spelling (crate::near) of a name no place of the country bears: the one place
/// the named region confirms (a town, ≥ [`TOWN_MIN_POPULATION`], unless the region is
/// second-level), or with no region the one place of the country a spelling slip away
/// (a doubled letter, "oe" for "ö"), a town. Two or more → ambiguous; none → `None`.
fn near_spelling(g: &Gazetteer, q: &Query, cc: Option<[u8; 2]>) -> Option<Lookup> {
    let cc = cc?;
    if names_place(g, q.city, Some(cc)) {
        return None;
    }
    let mut hits: Vec<(NameRef, Slip)> = Vec::new();
    for (variant, slip) in variants(&fold(q.city)) {
        let Some(refs) = g.names.get(variant.as_str()) else {
            continue;
        };
        for &r in refs.as_slice() {
            if place(g, r).is_none_or(|p| p.cc != cc) {
                continue;
            }
            match hits.iter_mut().find(|(h, _)| h.place() == r.place()) {
                Some(h) => h.1 = h.1.min(slip),
                None => hits.push((r, slip)),
            }
        }
    }
    if hits.is_empty() {
        return None;
    }
    let refs: Vec<NameRef> = hits.iter().map(|(r, _)| *r).collect();
    let (kept, how) = filter_by_regions(g, q, Some(cc), &refs, true);
    let (kept, confidence, matched_on) = match how {
        // A first-level region (a state, a province of a large country) spans too many
        // villages: there the slip must name a town; a county or municipality confirms
        // a place of any size.
        RegionUse::Confirmed | RegionUse::FirstLevel | RegionUse::Within => {
            let small_region = names_second_level(g, q, cc);
            let kept: Vec<NameRef> = kept
                .into_iter()
                .filter(|r| {
                    small_region
                        || place(g, *r).is_some_and(|p| p.population >= TOWN_MIN_POPULATION)
                })
                .collect();
            (kept, 0.8, "near+region")
        }
        // No region to confirm it: a spelling slip of the only such place of the country,
        // and a town — a typo of a village is weak evidence ("Melilli" is no Melilla).
        RegionUse::None | RegionUse::Unrecognised => {
            let town = matches!(hits.as_slice(), [(r, Slip::Spelling)]
                if place(g, *r).is_some_and(|p| p.population >= TOWN_MIN_POPULATION));
            if !town {
                return None;
            }
            (refs, 0.75, "near")
        }
    };
    if kept.is_empty() {
        return None;
    }
    let Some((chosen, pick)) = single_out(g, &kept, None) else {
        return Some(Lookup::Ambiguous {
            candidates: kept.len(),
        });
    };
    let p = place(g, chosen)?;
    let cluster_penalty = if pick == Pick::Cluster { 0.05 } else { 0.0 };
    Some(Lookup::Found(to_match(
        g,
        p,
        confidence - cluster_penalty,
        matched_on,
    )))
}

/// Whether a region part of the query names a second-level region of the country.
fn names_second_level(g: &Gazetteer, q: &Query, cc: [u8; 2]) -> bool {
    q.regions.iter().any(|r| {
        g.region_names
            .get(fold(r).as_str())
            .into_iter()
            .flatten()
            .any(|&i| {
                g.regions
                    .get(i as usize)
                    .is_some_and(|x| x.cc == cc && x.level == 2)
            })
    })
}

fn to_match(g: &Gazetteer, p: &Place, confidence: f64, matched_on: &'static str) -> Match {
    Match {
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
    }
}

/// Issue 13's lookup: commas, then the name.
fn lookup_exact(g: &Gazetteer, q: &Query, cc: Option<[u8; 2]>, rules: &Rules) -> Lookup {
    if !rules.comma_rules {
        return lookup_one(g, q, cc, rules);
    }
    // A place name that holds a comma ("Sant Pere, Santa Caterina i La Ribera") was split
    // by the location parser into a town and a false region: read it whole first.
    if let Some((first, rest)) = q.regions.split_first() {
        let joined = format!("{}, {}", q.city, first);
        if names_place(g, &joined, cc) {
            let whole = Query {
                city: &joined,
                regions: rest,
                country_code: q.country_code,
            };
            return lookup_one(g, &whole, cc, rules);
        }
    }
    let answer = lookup_one(g, q, cc, rules);
    if answer != Lookup::NotFound || q.regions.is_empty() {
        return answer;
    }
    // "Town, Town": a part after the city that is no region holding it but another town
    // nearby — the row names two places; this one is the city.
    let Some(cc) = cc else { return answer };
    let (towns, regions): (Vec<String>, Vec<String>) =
        q.regions.iter().cloned().partition(|r| is_town(g, r, cc));
    if towns.is_empty() {
        return answer;
    }
    let q2 = Query {
        city: q.city,
        regions: &regions,
        country_code: q.country_code,
    };
    match lookup_one(g, &q2, Some(cc), rules) {
        Lookup::Found(mut m) if towns.iter().all(|t| town_near(g, t, cc, m.lat, m.lon)) => {
            m.confidence = m.confidence.min(TWO_TOWNS_CONFIDENCE);
            m.matched_on = "name+town";
            Lookup::Found(m)
        }
        _ => answer,
    }
}

/// "Town, Town" (issue 13): whether `second`, written after `first` the way a region is,
/// is another town of the country within [`TWO_TOWNS_MAX_KM`] of the place `first` names
/// on its own, and no region called `second` holds a place called `first`.
pub(crate) fn two_towns(g: &Gazetteer, first: &str, second: &str, cc: [u8; 2]) -> bool {
    if !is_town(g, second, cc) {
        return false;
    }
    let Some(refs) = g.names.get(fold(first).as_str()) else {
        return false;
    };
    let hits: Vec<NameRef> = refs
        .as_slice()
        .iter()
        .copied()
        .filter(|r| place(g, *r).is_some_and(|p| p.cc == cc))
        .collect();
    let regions = [second.to_owned()];
    let q = Query {
        city: first,
        regions: &regions,
        country_code: None,
    };
    let (held, how) = filter_by_regions(g, &q, Some(cc), &hits, false);
    if !held.is_empty() && matches!(how, RegionUse::Confirmed | RegionUse::FirstLevel) {
        return false;
    }
    let alone = Query {
        city: first,
        regions: &[],
        country_code: None,
    };
    match lookup_one(g, &alone, Some(cc), &Rules::DEFAULT) {
        Lookup::Found(m) => town_near(g, second, cc, m.lat, m.lon),
        _ => false,
    }
}

/// Whether `name` is the name (main or alternate) of a place, in the country when given.
pub(crate) fn names_place(g: &Gazetteer, name: &str, cc: Option<[u8; 2]>) -> bool {
    let key = fold(name);
    g.names.get(key.as_str()).is_some_and(|refs| {
        refs.as_slice()
            .iter()
            .any(|r| cc.is_none_or(|c| place(g, *r).is_some_and(|p| p.cc == c)))
    })
}

/// Whether `name` is the main name of a town (≥ [`TOWN_MIN_POPULATION`]) of the country.
pub(crate) fn is_town(g: &Gazetteer, name: &str, cc: [u8; 2]) -> bool {
    towns_named(g, name, cc).next().is_some()
}

fn towns_named<'g>(g: &'g Gazetteer, name: &str, cc: [u8; 2]) -> impl Iterator<Item = &'g Place> {
    let key = fold(name);
    g.names
        .get(key.as_str())
        .map(|refs| refs.as_slice())
        .unwrap_or_default()
        .iter()
        .filter(|r| !r.is_alternate())
        .filter_map(|r| place(g, *r))
        .filter(move |p| p.cc == cc && p.population >= TOWN_MIN_POPULATION)
}

/// Whether a town called `name` lies within [`TWO_TOWNS_MAX_KM`] of the point.
pub(crate) fn town_near(g: &Gazetteer, name: &str, cc: [u8; 2], lat: f64, lon: f64) -> bool {
    towns_named(g, name, cc).any(|p| haversine_km(lat, lon, p.lat, p.lon) <= TWO_TOWNS_MAX_KM)
}

fn lookup_one(g: &Gazetteer, q: &Query, cc: Option<[u8; 2]>, rules: &Rules) -> Lookup {
    let key = fold(q.city);
    if key.is_empty() {
        return Lookup::NotFound;
    }
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

    let (filtered, region_use) = filter_by_regions(g, q, cc, &hits, rules.real_forms);
    if filtered.is_empty() {
        // A known region that holds no place of that name: the place is not in our data.
        return Lookup::NotFound;
    }
    let filtered = if rules.current_names_first {
        current_names_first(g, filtered)
    } else {
        filtered
    };
    // Within an area only: a unique place or one spot, never population.
    let dominance = rules.dominance.filter(|_| region_use != RegionUse::Within);
    let Some((chosen, pick)) = single_out(g, &filtered, dominance) else {
        return Lookup::Ambiguous {
            candidates: filtered.len(),
        };
    };
    let Some(p) = place(g, chosen) else {
        return Lookup::NotFound;
    };
    let (mut confidence, mut matched_on) = score(region_use, pick, chosen.is_alternate());
    if cc.is_none() {
        confidence -= NO_COUNTRY_PENALTY;
    }
    if p.former {
        matched_on = match region_use {
            RegionUse::None | RegionUse::Unrecognised => "former",
            _ => "former+region",
        };
    }
    Lookup::Found(to_match(g, p, confidence, matched_on))
}

/// A current name beats a historical or alternate one (issue 13): when a town (≥
/// [`TOWN_MIN_POPULATION`]) carries the name as its main name, places that carry it only
/// as an alternate ("Kuybyshev", Samara's name until 1991; "Kaliningrad", once Korolyov's)
/// are dropped. Below that size the alternates stay: a village's main name must not hide
/// a city's own native name.
fn current_names_first(g: &Gazetteer, cands: Vec<NameRef>) -> Vec<NameRef> {
    let town_by_main_name = cands.iter().any(|r| {
        !r.is_alternate() && place(g, *r).is_some_and(|p| p.population >= TOWN_MIN_POPULATION)
    });
    if town_by_main_name {
        cands.into_iter().filter(|r| !r.is_alternate()).collect()
    } else {
        cands
    }
}

/// Keeps the candidates that lie in every recognised region part; with `area` (issue
/// 30), when none does, those within the area of every part ([`RegionUse::Within`]).
fn filter_by_regions(
    g: &Gazetteer,
    q: &Query,
    cc: Option<[u8; 2]>,
    hits: &[NameRef],
    area: bool,
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
    // The area confirms a place; it picks one among namesakes only when that one is a
    // town: a village of a common name inside a county's box may be another village than
    // the band's, which GeoNames lacks.
    let within = || -> Vec<NameRef> {
        if !area {
            return Vec::new();
        }
        let inside: Vec<NameRef> = hits
            .iter()
            .copied()
            .filter(|r| {
                place(g, *r).is_some_and(|p| {
                    sets.iter().all(|s| {
                        s.iter().any(|&x| {
                            g.areas
                                .get(x as usize)
                                .is_some_and(|a| a.holds(p.lat, p.lon))
                        })
                    })
                })
            })
            .collect();
        let alone = hits.len() == inside.len();
        inside
            .into_iter()
            .filter(|r| alone || place(g, *r).is_some_and(|p| p.population >= TOWN_MIN_POPULATION))
            .collect()
    };
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
        let w = within();
        let how = if w.is_empty() {
            RegionUse::Confirmed
        } else {
            RegionUse::Within
        };
        return (w, how);
    }
    let fl = keep(&first_level);
    if fl.is_empty() {
        let w = within();
        if !w.is_empty() {
            return (w, RegionUse::Within);
        }
    }
    (fl, RegionUse::FirstLevel)
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
    // A town before villages: found by its main name, every other candidate below town
    // size, and clearly larger than the largest of them.
    let town_over_villages = d.town_ratio > 0
        && !top_ref.is_alternate()
        && top.population >= TOWN_MIN_POPULATION
        && second < TOWN_MIN_POPULATION
        && top.population >= second.saturating_mul(d.town_ratio);
    town_over_villages.then_some((top_ref, Pick::Dominant))
}

/// The confidence table of docs/gazetteer.md.
fn score(region: RegionUse, pick: Pick, alternate: bool) -> (f64, &'static str) {
    let (base, on) = match (pick, region, alternate) {
        (Pick::Dominant, RegionUse::Confirmed | RegionUse::FirstLevel | RegionUse::Within, _) => {
            (0.8, "name+region+population")
        }
        (Pick::Dominant, _, _) => (0.75, "name+population"),
        (_, RegionUse::Confirmed, false) => (0.95, "name+region"),
        (_, RegionUse::Confirmed, true) => (0.9, "alternate+region"),
        (_, RegionUse::FirstLevel, false) => (0.85, "name+admin1"),
        (_, RegionUse::FirstLevel, true) => (0.8, "alternate+admin1"),
        (_, RegionUse::Within, false) => (0.8, "name+area"),
        (_, RegionUse::Within, true) => (0.75, "alternate+area"),
        (_, RegionUse::None, false) => (0.9, "name"),
        (_, RegionUse::None, true) => (0.85, "alternate"),
        (_, RegionUse::Unrecognised, false) => (0.85, "name"),
        (_, RegionUse::Unrecognised, true) => (0.8, "alternate"),
    };
    let cluster_penalty = if pick == Pick::Cluster { 0.05 } else { 0.0 };
    (base - cluster_penalty, on)
}

pub(crate) fn place(g: &Gazetteer, r: NameRef) -> Option<&Place> {
    g.places.get(r.place() as usize)
}

pub(crate) fn parse_cc(s: &str) -> Option<[u8; 2]> {
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
