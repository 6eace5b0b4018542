//! Every place a name may mean, for a person to choose from (the admin console's
//! suggestions when an operator places a location by hand). Unlike
//! [`crate::Gazetteer::lookup`], this never singles one out: it lists them, most populous
//! first, the places of the given country before the others.

use crate::{Gazetteer, NameRef};
use bandmap_fold::fold;

/// One place a name may mean.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// GeoNames id.
    pub geonameid: i64,
    /// GeoNames main name.
    pub name: String,
    /// First-level subdivision name.
    pub admin1: Option<String>,
    /// ISO 3166-1 alpha-2 code.
    pub country_code: String,
    /// Latitude, WGS84 degrees.
    pub lat: f64,
    /// Longitude, WGS84 degrees.
    pub lon: f64,
    /// GeoNames population (0 when unknown).
    pub population: u64,
    /// Matched through an alternate name, not the main one.
    pub alternate: bool,
    /// Lies in one of the region parts asked about (name or alias of one of its regions).
    pub in_region: bool,
}

impl Gazetteer {
    /// Up to `limit` places called `name` (main or alternate name, any case or accents):
    /// those of `country_code` first when it is given, then those in one of the `regions`
    /// parts (as written upstream, e.g. `["Viken"]`), then by population.
    pub fn candidates(
        &self,
        name: &str,
        regions: &[String],
        country_code: Option<&str>,
        limit: usize,
    ) -> Vec<Candidate> {
        let key = fold(name);
        let Some(refs) = self.names.get(key.as_str()) else {
            return Vec::new();
        };
        let wanted: Vec<u32> = regions
            .iter()
            .filter_map(|r| self.region_names.get(fold(r).as_str()))
            .flatten()
            .copied()
            .collect();
        let cc = country_code.map(|c| c.trim().to_ascii_uppercase());
        let mut found: Vec<((bool, bool), Candidate)> = refs
            .as_slice()
            .iter()
            .filter_map(|r: &NameRef| {
                let p = self.places.get(r.place() as usize)?;
                let code = String::from_utf8_lossy(&p.cc).into_owned();
                let elsewhere = cc.as_deref().is_some_and(|c| c != code);
                let in_region = self
                    .place_regions(p)
                    .iter()
                    .chain(p.admin1.as_ref())
                    .any(|i| wanted.contains(i));
                Some((
                    (elsewhere, !in_region),
                    Candidate {
                        geonameid: p.geonameid,
                        name: p.name.to_string(),
                        admin1: p
                            .admin1
                            .and_then(|i| self.regions.get(i as usize))
                            .map(|reg| reg.name.to_string()),
                        country_code: code,
                        lat: p.lat,
                        lon: p.lon,
                        population: p.population,
                        alternate: r.is_alternate(),
                        in_region,
                    },
                ))
            })
            .collect();
        found.sort_by(|a, b| {
            a.0.cmp(&b.0)
                .then(b.1.population.cmp(&a.1.population))
                .then(a.1.geonameid.cmp(&b.1.geonameid))
        });
        found.into_iter().take(limit).map(|(_, c)| c).collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::Gazetteer;

    const TINY: &str = "\
R\t3\tNO\t1\tNO.46\tVestland\tHordaland
P\t5\tBergen\tBjörgvin\tNO\tNO.46\t3\t60.39299\t5.32415\t294029
P\t16\tBergen\t\tNL\tNL.07\t\t52.66917\t4.70417\t29715
P\t17\tBergen\t\tNL\tNL.05\t\t51.6\t6.03\t13000
";

    #[test]
    fn lists_every_place_of_a_name_country_first_then_by_population() {
        let g = match Gazetteer::from_reader(TINY.as_bytes()) {
            Ok(g) => g,
            Err(e) => panic!("tiny gazetteer must load: {e}"),
        };
        let ids = |cc: Option<&str>, limit| -> Vec<i64> {
            g.candidates("bergen", &[], cc, limit)
                .iter()
                .map(|c| c.geonameid)
                .collect()
        };
        assert_eq!(ids(None, 10), vec![5, 16, 17], "by population");
        assert_eq!(
            ids(Some("nl"), 10),
            vec![16, 17, 5],
            "the country's places first"
        );
        assert_eq!(ids(Some("NL"), 1), vec![16], "limit");
        let alt = g.candidates("Björgvin", &[], None, 10);
        assert_eq!(alt.len(), 1);
        assert!(alt[0].alternate);
        assert!(!alt[0].in_region);
        assert_eq!(alt[0].admin1.as_deref(), Some("Vestland"));
        let hordaland = g.candidates("Bergen", &["Hordaland".to_string()], None, 10);
        assert_eq!(hordaland[0].geonameid, 5);
        assert!(hordaland[0].in_region, "Hordaland is an alias of Vestland");
        assert!(!hordaland[1].in_region);
        assert!(g.candidates("Atlantis", &[], None, 10).is_empty());
        assert!(g.candidates("", &[], None, 10).is_empty());
    }
}
