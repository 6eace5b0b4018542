//! Property tests: lookups never panic, whatever the query.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_gazetteer::{Gazetteer, Lookup, Query, fold};
use proptest::prelude::*;

const TINY: &str = "R\t1\tDE\t1\tDE.02\tBayern\tBavaria\n\
P\t1\tMunich\tMünchen\tDE\tDE.02\t1\t48.1\t11.5\t1505005\n\
P\t2\tNeustadt\t\tDE\tDE.02\t1\t49.7\t12.1\t5000\n\
P\t3\tNeustadt\t\tDE\tDE.02\t1\t50.7\t10.1\t4000\n";

proptest! {
    #[test]
    fn lookup_never_panics(city in any::<String>(), regions in proptest::collection::vec(any::<String>(), 0..4), cc in proptest::option::of(any::<String>())) {
        let g = Gazetteer::from_reader(TINY.as_bytes()).unwrap();
        let q = Query { city: &city, regions: &regions, country_code: cc.as_deref() };
        if let Lookup::Found(m) = g.lookup(&q) {
            prop_assert!((0.0..=1.0).contains(&m.confidence));
        }
    }

    #[test]
    fn fold_is_idempotent(s in any::<String>()) {
        let once = fold(&s);
        prop_assert_eq!(fold(&once), once);
    }

    #[test]
    fn loader_never_panics(s in "([RP#]\t?[^\n]{0,60}\n){0,5}") {
        let _ = Gazetteer::from_reader(s.as_bytes());
    }
}
