//! `bandmap`: one binary, a command per service (CONTRACT §1). main parses the command and
//! hands over to the service's `run`; everything else lives in the service crates.

mod cli;
mod services;

use clap::Parser;
use std::process::ExitCode;

/// jemalloc rather than glibc malloc: after the map index and the band search load, glibc
/// kept the freed load buffers resident (161 MB RSS steady against 90 MB with jemalloc in
/// the same run, docs/performance.md "Serve memory").
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// How long jemalloc keeps freed pages before returning them to the system (its default,
/// 10 s, kept a rebuild's freed snapshot resident through the next requests: the peak of
/// docs/performance.md "Serve memory" was mostly such pages).
#[cfg(not(target_env = "msvc"))]
const DECAY_MS: isize = 1000;

/// Starts jemalloc's background thread, which returns unused pages to the system even
/// while the process is idle (otherwise only when it allocates again), and shortens the
/// decay of freed pages, for the arenas to come (`arenas.`) and the one already made at
/// this point (`arena.0.`; jemalloc refuses its all-arenas index for these settings). A
/// failure leaves jemalloc's defaults, which are correct, only slower to give memory back.
#[cfg(not(target_env = "msvc"))]
fn allocator_background_purge() {
    use tikv_jemalloc_ctl::{Access, AsName};
    let mut failed = Vec::new();
    if let Err(e) = tikv_jemalloc_ctl::background_thread::write(true) {
        failed.push(format!("background_thread: {e}"));
    }
    for key in [&b"arenas.dirty_decay_ms\0"[..], b"arena.0.dirty_decay_ms\0"] {
        if let Err(e) = key.name().write(DECAY_MS) {
            failed.push(format!("{}: {e}", String::from_utf8_lossy(key)));
        }
    }
    for key in [&b"arenas.muzzy_decay_ms\0"[..], b"arena.0.muzzy_decay_ms\0"] {
        if let Err(e) = key.name().write(0isize) {
            failed.push(format!("{}: {e}", String::from_utf8_lossy(key)));
        }
    }
    if !failed.is_empty() {
        eprintln!(
            "bandmap: allocator settings not applied: {}",
            failed.join("; ")
        );
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
