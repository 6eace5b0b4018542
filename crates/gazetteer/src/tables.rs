//! The built-in name tables of issue 30 (`crates/gazetteer/data/`, facts written for Band
//! Map, format in each file's header), applied to the index once the GeoNames file is
//! loaded:
//! - `counties.tsv`: ceremonial, metropolitan, 1974-96 and historic counties become
//!   aliases of the GeoNames regions they cover ("Berkshire" → Reading, Slough, …);
//! - `renamings.tsv`: former names and transliterations become alternate names of the
//!   town ("Zaporizhia" → Zaporizhzhia, "Vinnitsa" → Vinnytsya);
//! - `former_municipalities.tsv`: a municipality merged away becomes a place at its
//!   former seat ("Anjalankoski", Kouvola since 2009), in the regions of the town it is
//!   part of now, unless GeoNames knows it already.

use bandmap_fold::fold;

use crate::load::add_name;
use crate::matcher::{haversine_km, parse_cc};
use crate::{Gazetteer, NameRef, Place};

const COUNTIES: &str = include_str!("../data/counties.tsv");
const RENAMINGS: &str = include_str!("../data/renamings.tsv");
const FORMER: &str = include_str!("../data/former_municipalities.tsv");

/// A GeoNames place of the name within this distance of a former seat is that seat.
const SEAT_KNOWN_KM: f64 = 15.0;
/// A former seat takes the regions of the town it is part of now when that lies within
/// this distance …
const NOW_TOWN_KM: f64 = 40.0;
/// … else those of the nearest GeoNames place within this distance.
const SEAT_NEIGHBOUR_KM: f64 = 30.0;

/// Applies the three tables; rows the data cannot apply go to `g.table_misses`.
pub(crate) fn apply(g: &mut Gazetteer) {
    for (line, cols) in rows(COUNTIES) {
        if let [cc, names, regions] = cols.as_slice() {
            counties(g, cc, names, regions, line);
        } else {
            g.table_misses
                .push(format!("counties.tsv:{line}: expected 3 columns"));
        }
    }
    for (line, cols) in rows(RENAMINGS) {
        if let [cc, names, current] = cols.as_slice() {
            renaming(g, cc, names, current, line);
        } else {
            g.table_misses
                .push(format!("renamings.tsv:{line}: expected 3 columns"));
        }
    }
    for (line, cols) in rows(FORMER) {
        let seat = match cols.as_slice() {
            [cc, names, now, _year, lat, lon] => lat
                .parse()
                .ok()
                .zip(lon.parse().ok())
                .map(|s| (*cc, *names, *now, s)),
            _ => None,
        };
        match seat {
            Some((cc, names, now, seat)) => former(g, cc, names, now, seat, line),
            None => g
                .table_misses
                .push(format!("former_municipalities.tsv:{line}: bad row")),
        }
    }
}

/// Non-comment lines, split at tabs, with their 1-based line numbers.
fn rows(text: &'static str) -> impl Iterator<Item = (usize, Vec<&'static str>)> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|(i, l)| (i + 1, l.split('\t').map(str::trim).collect()))
}

fn counties(g: &mut Gazetteer, cc: &str, names: &str, regions: &str, line: usize) {
    let Some(cc) = parse_cc(cc) else {
        g.table_misses
            .push(format!("counties.tsv:{line}: bad country code"));
        return;
    };
    let mut covered = Vec::new();
    for region in regions.split('|') {
        let key = fold(region);
        let found: Vec<u32> = g
            .region_names
            .get(key.as_str())
            .into_iter()
            .flatten()
            .copied()
            .filter(|&i| {
                g.regions
                    .get(i as usize)
                    .is_some_and(|r| r.cc == cc && fold(&r.name) == key)
            })
            .collect();
        if found.is_empty() {
            g.table_misses
                .push(format!("counties.tsv:{line}: no region {region:?}"));
        }
        covered.extend(found);
    }
    for name in names.split('|') {
        let key = fold(name);
        if key.is_empty() {
            continue;
        }
        let v = g.region_names.entry(key.into_boxed_str()).or_default();
        for &i in &covered {
            if !v.contains(&i) {
                v.push(i);
            }
        }
    }
}

fn renaming(g: &mut Gazetteer, cc: &str, names: &str, current: &str, line: usize) {
    let town = parse_cc(cc).and_then(|cc| {
        g.names
            .get(fold(current).as_str())?
            .as_slice()
            .iter()
            .filter_map(|r| Some((r.place(), g.places.get(r.place() as usize)?)))
            .filter(|(_, p)| p.cc == cc)
            .max_by_key(|(_, p)| p.population)
            .map(|(i, _)| i)
    });
    let Some(town) = town else {
        g.table_misses
            .push(format!("renamings.tsv:{line}: no town {current:?} in {cc}"));
        return;
    };
    for name in names.split('|') {
        add_name(&mut g.names, &fold(name), NameRef::alternate(town));
    }
}

fn former(
    g: &mut Gazetteer,
    cc: &str,
    names: &str,
    now: &str,
    (lat, lon): (f64, f64),
    line: usize,
) {
    let Some(code) = parse_cc(cc) else {
        g.table_misses.push(format!(
            "former_municipalities.tsv:{line}: bad country code"
        ));
        return;
    };
    let known = |g: &Gazetteer, name: &str| {
        g.names.get(fold(name).as_str()).is_some_and(|refs| {
            refs.as_slice().iter().any(|r| {
                g.places.get(r.place() as usize).is_some_and(|p| {
                    p.cc == code && haversine_km(lat, lon, p.lat, p.lon) <= SEAT_KNOWN_KM
                })
            })
        })
    };
    let names: Vec<&str> = names.split('|').filter(|n| !n.is_empty()).collect();
    if names.iter().any(|n| known(g, n)) {
        return;
    }
    // The municipality it is part of now (its regions are the former one's), else the
    // nearest place.
    let now_key = fold(now);
    let neighbour = |max_km: f64, only_now: bool| {
        g.places
            .iter()
            .filter(|p| p.cc == code && !p.former && (p.lat - lat).abs() < 0.5)
            .filter(|p| !only_now || fold(&p.name) == now_key)
            .map(|p| (haversine_km(lat, lon, p.lat, p.lon), p))
            .filter(|(km, _)| *km <= max_km)
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, p)| (p.geonameid, p.admin1, g.place_regions(p).to_vec()))
    };
    let nearest = neighbour(NOW_TOWN_KM, true).or_else(|| neighbour(SEAT_NEIGHBOUR_KM, false));
    let (Some((geonameid, admin1, regions)), Some(first)) = (nearest, names.first()) else {
        g.table_misses.push(format!(
            "former_municipalities.tsv:{line}: no GeoNames place within {SEAT_NEIGHBOUR_KM} km of the seat"
        ));
        return;
    };
    let (Ok(idx), Ok(start), Ok(len)) = (
        u32::try_from(g.places.len()),
        u32::try_from(g.region_refs.len()),
        u8::try_from(regions.len()),
    ) else {
        return;
    };
    g.region_refs.extend(regions);
    g.places.push(Place {
        geonameid,
        name: (*first).into(),
        cc: code,
        admin1,
        regions_start: start,
        regions_len: len,
        lat,
        lon,
        population: 0,
        former: true,
    });
    for name in names {
        add_name(&mut g.names, &fold(name), NameRef::primary(idx));
    }
}

#[cfg(test)]
mod tests {
    use crate::{Gazetteer, Lookup, Query};

    /// Regions and places after GeoNames (rounded): Kymenlaakso with Kouvola, England
    /// with the unitary authority Reading and the county Essex.
    const DATA: &str = "\
R\t1\tFI\t1\tFI.13\tKymenlaakso\t
R\t2\tGB\t1\tGB.ENG\tEngland\t
R\t3\tGB\t2\tGB.ENG.K1\tReading\t
R\t4\tGB\t2\tGB.ENG.E4\tEssex\t
R\t5\tUA\t1\tUA.26\tZaporizhzhia Oblast\t
P\t1\tKouvola\t\tFI\tFI.13\t1\t60.86667\t26.7\t78094
P\t2\tReading\t\tGB\tGB.ENG\t2|3\t51.45625\t-0.97113\t318014
P\t3\tReading\t\tGB\tGB.ENG\t2|4\t51.7\t0.5\t600
P\t4\tZaporizhzhia\tZaporozhye\tUA\tUA.26\t5\t47.82289\t35.19031\t687684
";

    fn g() -> Gazetteer {
        match Gazetteer::from_reader(DATA.as_bytes()) {
            Ok(g) => g,
            Err(e) => panic!("test data must load: {e}"),
        }
    }

    fn look(g: &Gazetteer, city: &str, regions: &[&str], cc: &str) -> Lookup {
        let regions: Vec<String> = regions.iter().map(|s| s.to_string()).collect();
        g.lookup(&Query {
            city,
            regions: &regions,
            country_code: Some(cc),
        })
    }

    #[test]
    fn a_former_municipality_is_placed_at_its_seat_in_its_regions() {
        let g = g();
        let Lookup::Found(m) = look(&g, "Anjalankoski", &["Kymenlaakso"], "FI") else {
            panic!("Anjalankoski, Kymenlaakso must be found");
        };
        assert_eq!(
            (m.name.as_str(), m.lat, m.lon),
            ("Anjalankoski", 60.76, 26.80)
        );
        assert_eq!(m.matched_on, "former+region");
        assert_eq!(
            m.geonameid, 1,
            "the id of Kouvola, the town it is part of now"
        );
        assert_eq!(m.population, 0);
        assert_eq!(look(&g, "Anjalankoski", &[], "SE"), Lookup::NotFound);
    }

    #[test]
    fn a_ceremonial_county_confirms_the_unitary_town_and_refuses_the_namesake() {
        let g = g();
        let Lookup::Found(m) = look(&g, "Reading", &["Berkshire"], "GB") else {
            panic!("Reading, Berkshire must be found");
        };
        assert_eq!(m.geonameid, 2);
        assert_eq!(m.matched_on, "name+region");
        let Lookup::Found(m) = look(&g, "Reading", &["Essex"], "GB") else {
            panic!("the Essex Reading must be found");
        };
        assert_eq!(m.geonameid, 3, "the namesake in the county named");
    }

    #[test]
    fn a_renaming_is_an_alternate_of_the_town() {
        let g = g();
        for name in ["Zaporizhia", "Zaporozhe", "Zaporizhzhia"] {
            match look(&g, name, &[], "UA") {
                Lookup::Found(m) => assert_eq!(m.name, "Zaporizhzhia", "{name}"),
                other => panic!("{name}: {other:?}"),
            }
        }
    }

    #[test]
    fn rows_the_data_lacks_are_reported_not_applied() {
        let g = g();
        assert!(
            g.table_misses()
                .iter()
                .any(|m| m.starts_with("renamings.tsv") && m.contains("Kyiv")),
            "Kyiv is not in the test data"
        );
        assert_eq!(look(&g, "Kiev", &[], "UA"), Lookup::NotFound);
    }
}
