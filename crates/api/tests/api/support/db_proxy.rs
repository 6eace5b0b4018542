//! A loopback TCP proxy in front of PostgreSQL that a test switches off and on: it forwards,
//! refuses (accepts and closes at once), or black-holes (accepts and never answers, like a
//! partitioned network). Switching away from forwarding cuts or stalls the open connections.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// What the proxy does with connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Forward to the database.
    Forward,
    /// Close every connection at once.
    Refuse,
    /// Accept and never answer; open connections stall.
    BlackHole,
}

/// A running proxy; stops (and closes its connections) when dropped.
pub struct DbProxy {
    /// Its port on 127.0.0.1.
    pub port: u16,
    mode: watch::Sender<Mode>,
    accept: JoinHandle<()>,
}

impl DbProxy {
    /// Starts forwarding 127.0.0.1:`port` to `target` (`host:port`).
    pub async fn start(target: String) -> DbProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind proxy");
        let port = listener.local_addr().expect("proxy address").port();
        let (mode, _) = watch::channel(Mode::Forward);
        let modes = mode.clone();
        let accept = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                tokio::spawn(handle(client, target.clone(), modes.subscribe()));
            }
        });
        DbProxy { port, mode, accept }
    }

    /// Switches the proxy.
    pub fn set(&self, mode: Mode) {
        self.mode.send_replace(mode);
    }
}

impl Drop for DbProxy {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

async fn handle(mut client: TcpStream, target: String, mut mode: watch::Receiver<Mode>) {
    let now = *mode.borrow_and_update();
    match now {
        Mode::Refuse => return,
        Mode::BlackHole => return hold(&mut mode).await,
        Mode::Forward => {}
    }
    let Ok(mut server) = TcpStream::connect(&target).await else {
        return;
    };
    let switched = tokio::select! {
        _ = tokio::io::copy_bidirectional(&mut client, &mut server) => None,
        m = mode.wait_for(|m| *m != Mode::Forward) => m.ok().map(|m| *m),
    };
    if switched == Some(Mode::BlackHole) {
        hold(&mut mode).await;
    }
}

/// Keeps the caller's sockets open, silent, until the next switch (or the proxy's end).
async fn hold(mode: &mut watch::Receiver<Mode>) {
    let _ = mode.changed().await;
}
