//! What the admin modules share: parameter parsing ([`params`]), the response shapes of
//! lists, counts and runs ([`shapes`]), the OpenAPI schemas of the run vocabularies
//! ([`vocab`]) and the audit record of an admin action ([`audit`]).

pub mod audit;
pub mod params;
pub mod shapes;
pub mod vocab;
