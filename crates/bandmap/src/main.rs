//! `bandmap`: one binary, a command per service (CONTRACT §1). main parses the command and
//! hands over to the service's `run`; everything else lives in the service crates.

mod cli;
mod services;
mod supervisor;

use clap::Parser;
use std::process::ExitCode;

/// jemalloc rather than glibc malloc: after the map index and the band search load, glibc
/// kept the freed load buffers resident (161 MB RSS steady against 90 MB with jemalloc in
/// the same run, docs/performance.md "Serve memory").
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// jemalloc's settings, read at its start: a background thread returns unused pages to
/// the system within about a second (`dirty_decay_ms`), without waiting for the next
/// allocation, and lazily freed pages are not kept (`muzzy_decay_ms:0`), so the RSS seen
/// from outside falls back after a load's peak.
#[cfg(not(target_env = "msvc"))]
#[allow(non_upper_case_globals)]
#[unsafe(export_name = "_rjem_malloc_conf")]
pub static malloc_conf: &[u8] = b"background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0\0";

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    let config = match bandmap_config::from_env() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("bandmap: configuration error: {e}");
            return ExitCode::from(2);
        }
    };
    bandmap_health::set_hostname(&config.hostname);
    if let Err(e) = init_tracing(&config.rust_log) {
        eprintln!("bandmap: configuration error: invalid value for RUST_LOG: {e}");
        return ExitCode::from(2);
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("bandmap: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(services::dispatch(cli.command, config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("{e:#}");
            eprintln!("bandmap: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// A bad `RUST_LOG` stops the process like any other bad variable, rather than silently
/// logging at another level than the operator asked for.
fn init_tracing(filter: &str) -> Result<(), tracing_subscriber::filter::ParseError> {
    let filter = tracing_subscriber::EnvFilter::try_new(filter)?;
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false)
        .init();
    Ok(())
}
