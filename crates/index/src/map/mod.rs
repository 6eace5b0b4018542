//! The in-memory map index behind `/api/clusters` (docs/map.md): a columnar snapshot of
//! every mappable point sorted by Morton code, precomputed cluster levels for unfiltered
//! queries, lazily built and cached indexes for filtered ones, a GeoJSON writer, and the
//! refresh task that swaps in a new snapshot when `map_data_version` moves.

pub mod bodies;
#[cfg(test)]
mod build_tests;
pub mod family;
pub mod filter;
pub mod flows;
pub mod geojson;
pub mod grid;
pub mod groups;
pub mod index;
pub mod intern;
pub mod levels;
pub mod load;
pub mod query;
pub mod snapshot;
mod staged;

pub use bandmap_db::map_points::PointRow;
pub use family::Family;
pub use filter::Filter;
pub use index::MapIndex;
pub use load::{LoadError, data_version, load};
pub use query::{Bbox, ClusterQuery, Feature, Plan, QueryResult, plan};
pub use snapshot::Snapshot;
