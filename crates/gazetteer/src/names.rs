//! The gazetteer answers the location parser's two questions (issue 13,
//! `bandmap_location::PlaceNames`): is a comma part of a place name, and is the part after
//! a city another town rather than its region.

use bandmap_location::PlaceNames;

use crate::Gazetteer;
use crate::matcher::{self, parse_cc};

impl PlaceNames for Gazetteer {
    fn is_place_name(&self, name: &str, country_code: &str) -> bool {
        parse_cc(country_code).is_some_and(|cc| matcher::names_place(self, name, Some(cc)))
    }

    /// See `matcher::two_towns`: a town of the country near `first`, not a region of it.
    fn are_two_towns(&self, first: &str, second: &str, country_code: &str) -> bool {
        parse_cc(country_code).is_some_and(|cc| matcher::two_towns(self, first, second, cc))
    }
}
