//! The two in-memory indexes of the API process, each kept current from PostgreSQL through
//! the named queries of `bandmap_db`:
//! - [`map`]: the map index behind `/api/clusters` (docs/map.md);
//! - [`band_search`]: the admin band search behind `GET /admin/api/bands`
//!   (docs/admin-auth-and-bands.md).

pub mod band_search;
pub mod map;
