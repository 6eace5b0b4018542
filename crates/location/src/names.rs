//! What the parser may ask a gazetteer (issue 13): whether a comma belongs to a place name,
//! and whether the part after a city is another town rather than its region. The parser
//! stays pure: [`parse`](crate::parse) asks nobody ([`NoNames`]); a caller holding a
//! gazetteer passes it to [`parse_with`](crate::parse_with).

/// Place-name knowledge of one country at a time (`country_code`: ISO 3166-1 alpha-2).
pub trait PlaceNames {
    /// Whether `name`, commas included, is the name of one place of the country
    /// (`"Sant Pere, Santa Caterina i La Ribera"`, a Barcelona district).
    fn is_place_name(&self, name: &str, country_code: &str) -> bool;
    /// Whether `second`, written after `first` the way a region is, is instead another
    /// town of the country near it, with `first` a place of its own (`"Tukums, Riga"`,
    /// `"Torres Vedras, Odivelas"`): two places of one step.
    fn are_two_towns(&self, first: &str, second: &str, country_code: &str) -> bool;
}

/// Knows no names: every comma separates a region, as in [`parse`](crate::parse).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoNames;

impl PlaceNames for NoNames {
    fn is_place_name(&self, _name: &str, _country_code: &str) -> bool {
        false
    }
    fn are_two_towns(&self, _first: &str, _second: &str, _country_code: &str) -> bool {
        false
    }
}
