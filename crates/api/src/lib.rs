//! The HTTP server of `bandmap serve`: the public map API (`/api/*`), the admin API
//! (`/admin/api/*`), the admin authentication area (`/admin/auth/*`), the OpenAPI document,
//! health probes and the static front end, all same-origin.

pub mod admin;
pub mod auth;
pub mod background;
pub mod body_deadline;
pub mod client_ip;
pub mod connections;
pub mod encoded;
pub mod error;
pub mod extract;
pub mod filter_text;
pub mod guards;
pub mod import;
pub mod jwt_crypto;
pub mod openapi;
pub mod pages;
pub mod param;
pub mod probes;
pub mod public;
pub mod read_models;
pub mod retention;
pub mod security_headers;
pub mod server;
pub mod state;
pub mod tile_probe;
pub mod web;
pub mod writes;

pub use bandmap_time::{Clock, SystemClock};
pub use error::ApiError;
pub use server::{ServeError, build_router, serve};
pub use state::AppState;
