//! Pure location parsing: an upstream `location_text` becomes ordered steps of places,
//! plus the country table (codes, MA names, European flag, centroids). No I/O.
//!
//! ```
//! let steps = bandmap_location::parse("Sandviken, Gävleborg (early); Stockholm (later)", Some("SE"));
//! assert_eq!(steps[0].label, "early");
//! assert_eq!(steps[0].places[0].regions, ["Gävleborg"]);
//! assert_eq!(steps[1].places[0].country_code.as_deref(), Some("SE"));
//! ```
//!
//! Rules and decisions: docs/location-parsing.md.

pub mod countries;
mod marker;
mod names;
mod normalize;
mod parse;
mod place;
mod split;

pub use countries::Country;
pub use names::{NoNames, PlaceNames};
pub use normalize::fold;
pub use parse::{Step, parse, parse_with};
pub use place::Place;
