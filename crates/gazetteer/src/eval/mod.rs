//! The evaluation of issue 13, re-runnable by anyone: a seeded generator of band location
//! texts naming real European towns of more than 15,000 inhabitants taken from the
//! gazetteer's own GeoNames data, in the upstream's forms, with the truth coordinates
//! ([`generate`]), and a scorer that runs them through the offline path of the pipeline —
//! the location parser, then the gazetteer, then rule 15's confidence floor — and counts
//! right (within [`RIGHT_KM`] of a true town), wrong and unresolved ([`score`]).
//!
//! Used by `tests/gazetteer/precision.rs` (a bounded sample, thresholds asserted) and by
//! `bench/gazetteer-precision.sh` (the full 100,000 rows, figures printed).

mod generate;
mod real;
mod score;

pub use generate::{Form, Row, Town, generate};
pub use real::{BadLine, Class, RealRow, parse_real};
pub use score::{Score, Unresolved, WrongPlace, score};

/// A placed point within this distance of a true town is right; farther from every true
/// town of its row, it is wrong.
pub const RIGHT_KM: f64 = 25.0;
/// The towns the generator names have more than this many inhabitants.
pub const MIN_POPULATION: u64 = 15_000;
/// Rule 15's default floor (`GEOCODE_MIN_CONFIDENCE`): lower matches are not placed.
pub const MIN_CONFIDENCE: f64 = 0.7;
