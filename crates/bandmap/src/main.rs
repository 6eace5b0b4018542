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

/// Starts jemalloc's background thread, which returns unused pages to the system (after
/// its default 10 s decay) even while the process is idle, so the RSS seen from outside
/// falls back after a load's peak. Without it, pages are returned only when the process
/// allocates again. A failure leaves the default (purging on allocation) and is harmless.
#[cfg(not(target_env = "msvc"))]
fn allocator_background_purge() {
    if let Err(e) = tikv_jemalloc_ctl::background_thread::write(true) {
        eprintln!("bandmap: jemalloc background thread not started: {e}");
    }
}

#[cfg(target_env = "msvc")]
fn allocator_background_purge() {}

fn main() -> ExitCode {
    allocator_background_purge();
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
