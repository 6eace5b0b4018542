//! The three in-memory indexes of the API process, each kept current from PostgreSQL through
//! the named queries of `bandmap_db`:
//! - [`map`]: the map index behind `/api/clusters` (docs/map.md);
//! - [`band_search`]: the admin band search behind `GET /admin/api/bands`
//!   (docs/admin-auth-and-bands.md);
//! - [`name_search`]: the public name search behind `GET /api/search` (docs/security.md),
//!   loaded with [`countries`], the catalogue counts behind `GET /api/countries`.
//!
//! All three are [`refresh::ReadModel`]s, kept fresh by the one task of [`refresh`].

pub mod band_search;
pub mod countries;
pub mod map;
pub mod name_search;
pub mod populations;
pub mod refresh;
