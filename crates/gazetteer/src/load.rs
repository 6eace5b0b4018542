//! Parsing of the gazetteer file (format in docs/gazetteer.md) into the in-memory index.

use std::collections::HashMap;
use std::io::BufRead;

use crate::error::GazetteerError;
use crate::hash::FastMap;
use crate::{Gazetteer, NameRef, Place, Refs, Region};
use bandmap_fold::{fold, fold_into};

/// Builds the index from the file's lines.
pub(crate) fn parse(mut r: impl BufRead) -> Result<Gazetteer, GazetteerError> {
    let mut g = Gazetteer::default();
    g.names.reserve(1 << 19);
    g.places.reserve(1 << 17);
    // File region ids -> index in `g.regions`.
    let mut region_idx: HashMap<u32, u32> = HashMap::new();
    let mut line = String::new();
    let mut key = String::new();
    let mut no = 0usize;
    loop {
        line.clear();
        if r.read_line(&mut line)? == 0 {
            break;
        }
        no += 1;
        let text = line.trim_end_matches(['\n', '\r']);
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let err = |reason| GazetteerError::Format { line: no, reason };
        let mut cols = text.split('\t');
        match cols.next() {
            Some("R") => {
                let id: u32 = num(cols.next()).ok_or_else(|| err("bad region id"))?;
                let cc = country(cols.next()).ok_or_else(|| err("bad country code"))?;
                let level: u8 = num(cols.next()).ok_or_else(|| err("bad region level"))?;
                let _code = cols.next().ok_or_else(|| err("missing region code"))?;
                let name = cols
                    .next()
                    .filter(|n| !n.is_empty())
                    .ok_or_else(|| err("missing region name"))?;
                let aliases = cols.next().unwrap_or("");
                let idx = u32::try_from(g.regions.len()).map_err(|_| err("too many regions"))?;
                g.regions.push(Region {
                    cc,
                    level,
                    name: name.into(),
                });
                region_idx.insert(id, idx);
                for n in std::iter::once(name).chain(aliases.split('|')) {
                    let key = fold(n);
                    if !key.is_empty() {
                        let v = g.region_names.entry(key.into_boxed_str()).or_default();
                        if !v.contains(&idx) {
                            v.push(idx);
                        }
                    }
                }
            }
            Some("P") => {
                let geonameid: i64 = num(cols.next()).ok_or_else(|| err("bad geonameid"))?;
                let name = cols
                    .next()
                    .filter(|n| !n.is_empty())
                    .ok_or_else(|| err("missing name"))?;
                let alternates = cols
                    .next()
                    .ok_or_else(|| err("missing alternates column"))?;
                let cc = country(cols.next()).ok_or_else(|| err("bad country code"))?;
                let _admin1 = cols.next().ok_or_else(|| err("missing admin1 column"))?;
                let rids = cols
                    .next()
                    .ok_or_else(|| err("missing region ids column"))?;
                let lat: f64 = num(cols.next()).ok_or_else(|| err("bad latitude"))?;
                let lon: f64 = num(cols.next()).ok_or_else(|| err("bad longitude"))?;
                let population: u64 = num(cols.next()).ok_or_else(|| err("bad population"))?;
                if !(-90.0..=90.0).contains(&lat) || !(-180.0..=180.0).contains(&lon) {
                    return Err(err("coordinates out of range"));
                }
                let idx = u32::try_from(g.places.len()).map_err(|_| err("too many places"))?;
                let start =
                    u32::try_from(g.region_refs.len()).map_err(|_| err("too many region refs"))?;
                let mut admin1 = None;
                for rid in rids.split('|').filter(|s| !s.is_empty()) {
                    let rid: u32 = rid.parse().map_err(|_| err("bad region id"))?;
                    // A reference to a region the file does not define is dropped, not fatal.
                    if let Some(&ri) = region_idx.get(&rid) {
                        g.region_refs.push(ri);
                        if admin1.is_none()
                            && g.regions.get(ri as usize).is_some_and(|r| r.level == 1)
                        {
                            admin1 = Some(ri);
                        }
                    }
                }
                let len = u8::try_from(g.region_refs.len() - start as usize)
                    .map_err(|_| err("too many regions"))?;
                g.places.push(Place {
                    geonameid,
                    name: name.into(),
                    cc,
                    admin1,
                    regions_start: start,
                    regions_len: len,
                    lat,
                    lon,
                    population,
                    former: false,
                });
                fold_into(name, &mut key);
                add_name(&mut g.names, &key, NameRef::primary(idx));
                for alt in alternates.split('|').filter(|s| !s.is_empty()) {
                    fold_into(alt, &mut key);
                    add_name(&mut g.names, &key, NameRef::alternate(idx));
                }
            }
            _ => return Err(err("unknown record type (expected R or P)")),
        }
    }
    Ok(g)
}

pub(crate) fn add_name(names: &mut FastMap<Box<str>, Refs>, key: &str, r: NameRef) {
    if key.is_empty() {
        return;
    }
    match names.get_mut(key) {
        Some(refs) => refs.add(r),
        None => {
            names.insert(key.into(), Refs::One(r));
        }
    }
}

fn num<T: std::str::FromStr>(s: Option<&str>) -> Option<T> {
    s?.trim().parse().ok()
}

fn country(s: Option<&str>) -> Option<[u8; 2]> {
    match s?.as_bytes() {
        &[a, b] if a.is_ascii_alphabetic() && b.is_ascii_alphabetic() => {
            Some([a.to_ascii_uppercase(), b.to_ascii_uppercase()])
        }
        _ => None,
    }
}
