//! Test seams (feature `testing`, for the services' tests only): a unit whose first unit
//! of work panics, and a capture of the log lines written meanwhile.

use crate::unit::{Pass, Unit};
use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};
use tokio_util::sync::CancellationToken;
use tracing_subscriber::fmt::MakeWriter;

/// The message of the injected panic.
pub const INJECTED: &str = "injected panic in a unit of work";

/// Wraps a service's unit: the first unit of work panics with [`INJECTED`], the next ones
/// are the service's own; after `then` of them, `shutdown` is cancelled so the loop ends.
pub struct PanicFirst<U> {
    inner: U,
    calls: u32,
    then: u32,
    shutdown: CancellationToken,
}

impl<U> PanicFirst<U> {
    /// Panics once, then runs `then` units of `inner`, then cancels `shutdown`.
    pub fn new(inner: U, then: u32, shutdown: CancellationToken) -> PanicFirst<U> {
        PanicFirst {
            inner,
            calls: 0,
            then,
            shutdown,
        }
    }

    /// How many of the service's own units ran after the panic.
    pub fn units_after_panic(&self) -> u32 {
        self.calls.saturating_sub(1)
    }
}

impl<U: Unit> Unit for PanicFirst<U> {
    type Error = U::Error;

    async fn run(&mut self) -> Result<Pass, U::Error> {
        self.calls += 1;
        if self.calls == 1 {
            panic!("{INJECTED}");
        }
        let pass = self.inner.run().await;
        if self.calls > self.then {
            self.shutdown.cancel();
        }
        pass
    }
}

/// The log lines written on this thread while the guard of [`capture`] lives.
#[derive(Clone, Default)]
pub struct Logs(Arc<Mutex<Vec<u8>>>);

impl Logs {
    /// Everything written so far.
    pub fn text(&self) -> String {
        let bytes = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// The lines containing every one of `parts`.
    pub fn lines_with(&self, parts: &[&str]) -> Vec<String> {
        self.text()
            .lines()
            .filter(|l| parts.iter().all(|p| l.contains(p)))
            .map(str::to_owned)
            .collect()
    }
}

impl Write for Logs {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut bytes = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for Logs {
    type Writer = Logs;

    fn make_writer(&'a self) -> Logs {
        self.clone()
    }
}

/// Captures the log lines (level info and above, no colours) of this thread — of a
/// current-thread tokio test, every task it spawns — until the guard is dropped.
pub fn capture() -> (tracing::subscriber::DefaultGuard, Logs) {
    let logs = Logs::default();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(logs.clone())
        .with_ansi(false)
        .with_max_level(tracing::Level::INFO)
        .finish();
    (tracing::subscriber::set_default(subscriber), logs)
}
