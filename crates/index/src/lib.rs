//! The two in-memory indexes of the API process, each kept current from PostgreSQL through
//! the named queries of `bandmap_db`:
//! - [`map`]: the map index behind `/api/clusters` (docs/map.md);
//! - [`band_search`]: the admin band search behind `GET /admin/api/bands`
//!   (docs/admin-auth-and-bands.md).

pub mod band_search;
pub mod map;

/// One full load at a time per process: the map snapshot (150,000 rows read and built) and
/// the band search copy (120,000 rows) each hold their rows as loaded beside the structure
/// being built; started together at boot (and by a refresh during a search reload) their
/// transients added up to the process's peak memory (docs/performance.md, "Serve memory").
/// Queries never wait on it: both indexes keep serving their current copy.
pub(crate) static LOAD_PERMIT: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(1);
