//! The command line.

use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// Band Map: the metal bands of Europe on a map.
#[derive(Debug, Parser)]
#[command(name = "bandmap", version, about, after_long_help = env_help(), after_help = env_help())]
pub struct Cli {
    /// The service to run.
    #[command(subcommand)]
    pub command: Command,
}

/// One command per service.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// HTTP server: public API, admin API and auth, admin front end at /admin/, map at /.
    Serve,
    /// Crawler daemon: incremental, enrichment and full crawls, job triggers, heartbeat.
    Crawler,
    /// Geocoding worker with self-repair and heartbeat.
    Geocoder,
    /// Enqueue daemon: 15 s trigger poll, automatic scan, heartbeat.
    Enqueue,
    /// LLM worker for the places the geocoder could not resolve.
    Llm,
    /// All services in one process (the default for one machine).
    All,
    /// Apply database migrations, then exit.
    Migrate,
    /// Bulk-load bands from an NDJSON file (one band object per line).
    Import {
        /// The NDJSON file.
        file: PathBuf,
    },
    /// Print the bcrypt hash of a password read from standard input (for ADMIN_SEED_PASSWORD_HASH).
    #[command(hide = true)]
    HashPassword,
}

fn env_help() -> String {
    let mut s = String::from("Environment (also read from ./.env):\n");
    for v in bandmap_config::VARIABLES {
        let default = if v.default.is_empty() {
            String::new()
        } else {
            format!(" [{}]", v.default)
        };
        s.push_str(&format!("  {:<34}{}{}\n", v.name, v.meaning, default));
    }
    s
}
