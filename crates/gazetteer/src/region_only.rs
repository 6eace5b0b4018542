//! A region alone is not a town (issue 30): "Uusimaa", "Bavaria", "East Sussex, England".
//! Rule 15 refuses a coarse result, so such a text goes on to the fallbacks and the LLM;
//! the gazetteer only makes sure a region's name is never taken for a village of the same
//! name elsewhere ("Zeeland" is a province, not the Brabant village Zeeland).

use bandmap_fold::fold;

use crate::matcher::{TOWN_MIN_POPULATION, place};
use crate::{Gazetteer, Query};

/// The region the city part names, when it names a region of the country and no town:
/// the text is a region alone unless a town (≥ [`TOWN_MIN_POPULATION`]) of the country
/// bears the name ("Minsk" beside Minsk Oblast, "Moskva", "Salzburg"), or a place of the
/// name lies in the region of that name — by its main name ("Vaduz", "Valletta": small
/// countries' first-level regions are municipalities), or by any name when the region is
/// second-level (municipalities and provinces named after their seat: "Trysil",
/// "Milano"). A village elsewhere ("Zeeland" in Brabant) or one that bears the region's
/// name only as an alternate ("Le Vaud") is not the town. `None` without a country.
pub(crate) fn region_only(g: &Gazetteer, q: &Query, cc: Option<[u8; 2]>) -> Option<String> {
    let cc = cc?;
    let key = fold(q.city);
    let named: Vec<u32> = g
        .region_names
        .get(key.as_str())?
        .iter()
        .copied()
        .filter(|&i| g.regions.get(i as usize).is_some_and(|r| r.cc == cc))
        .collect();
    let first = g.regions.get(*named.first()? as usize)?;
    let refs = g
        .names
        .get(key.as_str())
        .map(|r| r.as_slice())
        .unwrap_or_default();
    let is_town = refs.iter().any(|r| {
        place(g, *r).is_some_and(|p| {
            let inside = |second_level_only: bool| {
                g.place_regions(p).iter().any(|x| {
                    named.contains(x)
                        && (!second_level_only
                            || g.regions.get(*x as usize).is_some_and(|r| r.level == 2))
                })
            };
            p.cc == cc && (p.population >= TOWN_MIN_POPULATION || inside(r.is_alternate()))
        })
    });
    (!is_town).then(|| first.name.to_string())
}

#[cfg(test)]
mod tests {
    use crate::{Gazetteer, Lookup, Query};

    /// After GeoNames: the province Zeeland and a Brabant village of that name, the
    /// canton Vaud and its village Le Vaud ("Vaud"), Salzburg city in its state, Minsk city
    /// outside Minsk Oblast, Trysil in its municipality.
    const DATA: &str = "\
R\t1\tNL\t1\tNL.10\tZeeland\t
R\t2\tNL\t1\tNL.06\tNoord-Brabant\tNorth Brabant
R\t3\tCH\t1\tCH.VD\tVaud\t
R\t4\tAT\t1\tAT.05\tSalzburg\t
R\t5\tBY\t1\tBY.05\tMinskaja voblasc\tMinsk
R\t6\tBY\t1\tBY.04\tHorad Minsk\t
R\t7\tNO\t1\tNO.34\tInnlandet\t
R\t8\tNO\t2\tNO.34.3421\tTrysil\t
R\t9\tFI\t1\tFI.18\tUusimaa\tNyland
P\t1\tZeeland\t\tNL\tNL.06\t2\t51.6975\t5.67639\t4750
P\t2\tMiddelburg\t\tNL\tNL.10\t1\t51.5\t3.61\t48000
P\t3\tLe Vaud\tVaud\tCH\tCH.VD\t3\t46.47753\t6.23603\t1104
P\t4\tSalzburg\t\tAT\tAT.05\t4\t47.79941\t13.04399\t157245
P\t5\tMinsk\t\tBY\tBY.04\t6\t53.9\t27.56667\t1742124
P\t6\tTrysil\t\tNO\tNO.34\t7|8\t61.31\t12.26\t2000
";

    fn look(city: &str, regions: &[&str], cc: &str) -> Lookup {
        let g = match Gazetteer::from_reader(DATA.as_bytes()) {
            Ok(g) => g,
            Err(e) => panic!("test data must load: {e}"),
        };
        let regions: Vec<String> = regions.iter().map(|s| s.to_string()).collect();
        g.lookup(&Query {
            city,
            regions: &regions,
            country_code: Some(cc),
        })
    }

    #[test]
    fn a_region_alone_is_never_a_village_of_its_name() {
        let region = |r: &str| Lookup::RegionOnly {
            region: r.to_string(),
        };
        assert_eq!(look("Zeeland", &[], "NL"), region("Zeeland"));
        assert_eq!(look("Vaud", &[], "CH"), region("Vaud"));
        assert_eq!(look("Uusimaa", &[], "FI"), region("Uusimaa"));
        assert_eq!(look("Nyland", &[], "FI"), region("Uusimaa"));
        // Another country's region is not this country's.
        assert_eq!(look("Zeeland", &[], "BE"), Lookup::NotFound);
    }

    #[test]
    fn a_town_named_like_its_region_stays_a_town() {
        for (city, cc) in [("Salzburg", "AT"), ("Minsk", "BY"), ("Trysil", "NO")] {
            assert!(
                matches!(look(city, &[], cc), Lookup::Found(ref m) if m.name == city),
                "{city}"
            );
        }
        // Named with its region, the village is the town the band means.
        assert!(matches!(
            look("Zeeland", &["North Brabant"], "NL"),
            Lookup::Found(ref m) if m.name == "Zeeland"
        ));
    }
}
