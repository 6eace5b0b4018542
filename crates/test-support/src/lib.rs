#![expect(
    clippy::expect_used,
    reason = "test support: a broken test database must stop the test loudly"
)]
//! Test support: every test gets its own fresh PostgreSQL + PostGIS database, cloned from a
//! template migrated once per migration set (the crates.io pattern), and dropped when the
//! test ends. No database mocks.
//!
//! The server is `TEST_DATABASE_URL` (default `postgres://postgres@127.0.0.1:5432/postgres`),
//! a role allowed to create databases and the PostGIS extension.

#[cfg(feature = "app")]
pub mod app;
mod database;
pub mod private_cluster;

#[cfg(feature = "app")]
pub use app::{TestApp, spawn_app, spawn_app_with};
pub use database::{TestDb, admin_url};
pub use private_cluster::PrivateCluster;
