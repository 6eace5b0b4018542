//! PostgreSQL access: the connection (retried, rule 25), the migration runner (advisory
//! lock, rule 25), and one module of named queries per table family, so the admin API and
//! the workers share one meaning of each operation (STYLE habit 4).

pub mod activity_counters;
pub mod admin_users;
pub mod audit;
pub mod band_card;
pub mod band_locations;
pub mod bands;
pub mod catalogue_stats;
pub mod checkpoints;
pub mod connect;
pub mod country_counts;
mod error;
pub mod geocode_cache;
pub mod geocoding_stats;
pub mod like;
pub mod llm_cache;
pub mod login_attempts;
pub mod map_points;
pub mod migrate;
pub mod monitoring;
#[cfg(feature = "openapi")]
pub mod openapi;
pub mod pages;
pub mod point;
pub mod provider_pacing;
pub mod retention;
pub mod run_owner;
pub mod runs;
pub mod service;
pub mod service_health;
pub mod triggers;

pub use error::{DbError, is_unavailable};
pub use point::{Point, PointError};
pub use service::Service;
pub use sqlx::PgPool;

/// Result alias of this crate.
pub type Result<T, E = DbError> = std::result::Result<T, E>;
