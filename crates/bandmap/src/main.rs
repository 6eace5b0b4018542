//! `bandmap`: one binary, a command per service (CONTRACT §1). main parses the command and
//! hands over to the service's `run`; everything else lives in the service crates.

mod cli;
mod services;
mod supervisor;

use clap::Parser;
use std::process::ExitCode;

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
