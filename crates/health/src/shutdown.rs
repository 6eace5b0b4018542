//! The shutdown signal shared by every service loop: a watch channel that flips once
//! (SIGTERM/SIGINT in main).

use tokio::sync::watch;

/// The receiving side: services `select!` on [`Shutdown::cancelled`].
#[derive(Clone, Debug)]
pub struct Shutdown {
    rx: watch::Receiver<bool>,
}

/// The sending side, held by main.
#[derive(Debug)]
pub struct ShutdownTrigger {
    tx: watch::Sender<bool>,
}

/// A connected pair.
pub fn shutdown_pair() -> (ShutdownTrigger, Shutdown) {
    let (tx, rx) = watch::channel(false);
    (ShutdownTrigger { tx }, Shutdown { rx })
}

impl ShutdownTrigger {
    /// Asks every holder of a signal to stop.
    pub fn fire(&self) {
        let _ = self.tx.send(true);
    }
}

impl Shutdown {
    /// A signal that never fires (tests and one-shot commands).
    pub fn never() -> Self {
        let (tx, rx) = watch::channel(false);
        // Keep the sender alive forever so `cancelled` never resolves.
        std::mem::forget(tx);
        Self { rx }
    }

    /// Whether shutdown was requested.
    pub fn is_cancelled(&self) -> bool {
        *self.rx.borrow()
    }

    /// Resolves when shutdown is requested.
    pub async fn cancelled(&mut self) {
        while !*self.rx.borrow_and_update() {
            if self.rx.changed().await.is_err() {
                // Sender dropped: treat as shutdown so loops end.
                return;
            }
        }
    }
}
