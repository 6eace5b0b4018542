//! Held refusals (issue 18): a 429 — a locked login, a full password-check bound, a client
//! past its public rate — is sent after `HTTP_REFUSAL_DELAY_MS` (1 s) instead of at once.
//!
//! A refusal costs the server almost nothing, but a flood answered at once comes straight
//! back: 200 connections got ~7,000 refusals a second, and the CPU spent answering them was
//! the wait every other request saw (docs/reliability.md, "Login flood"). Held for a
//! second, the same connections send ~200 requests a second. A client that honours
//! `Retry-After` never notices.
//!
//! Held refusals keep their connections, so at most [`HttpLimits::refusal_holds`] (half the
//! connection cap) are held at once; past that a refusal is sent at once, and the cap keeps
//! its other half for everyone else. Nor is a refusal held for a peer that already holds
//! more connections than a browser opens (issue 31, [`crate::connections`]): holding would
//! only help one client keep connections open. Such a refusal is sent at once with
//! `Connection: close`, so the peer gives the connection back and pays a new one for its
//! next attempt.

use crate::connections::PeerConnections;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::Response;
use bandmap_config::HttpLimits;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

/// The delay and the bound on refusals held at once.
#[derive(Debug)]
pub struct Tarpit {
    delay: Duration,
    holds: Semaphore,
    capacity: usize,
}

impl Tarpit {
    /// From the server limits.
    pub fn new(limits: &HttpLimits) -> Tarpit {
        Tarpit::with(limits.refusal_delay, limits.refusal_holds())
    }

    /// `holds` refusals held `delay` each at most.
    pub fn with(delay: Duration, holds: usize) -> Tarpit {
        Tarpit {
            delay,
            holds: Semaphore::new(holds),
            capacity: holds,
        }
    }

    /// Refusals being held now.
    pub fn holding(&self) -> usize {
        self.capacity.saturating_sub(self.holds.available_permits())
    }
}

/// The middleware: a 429 waits for the delay when a hold is free.
pub async fn hold_refusals(
    State(tarpit): State<Arc<Tarpit>>,
    req: Request,
    next: Next,
) -> Response {
    let many = req
        .extensions()
        .get::<PeerConnections>()
        .is_some_and(PeerConnections::holds_many);
    let mut response = next.run(req).await;
    if many && response.status() == StatusCode::TOO_MANY_REQUESTS {
        // Not held, and the connection is not kept either: a flood from one address pays a
        // new connection per refusal (under the per-address cap) instead of a held slot.
        response.headers_mut().insert(
            axum::http::header::CONNECTION,
            axum::http::HeaderValue::from_static("close"),
        );
        return response;
    }
    if response.status() == StatusCode::TOO_MANY_REQUESTS
        && !tarpit.delay.is_zero()
        && let Ok(_hold) = tarpit.holds.try_acquire()
    {
        tokio::time::sleep(tarpit.delay).await;
    }
    response
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use axum::Router;
    use axum::routing::get;
    use tower::ServiceExt;

    fn app(tarpit: Arc<Tarpit>) -> Router {
        Router::new()
            .route("/refused", get(|| async { StatusCode::TOO_MANY_REQUESTS }))
            .route("/ok", get(|| async { StatusCode::OK }))
            .layer(axum::middleware::from_fn_with_state(tarpit, hold_refusals))
    }

    async fn call(app: &Router, path: &str) -> StatusCode {
        let req = Request::builder()
            .uri(path)
            .body(axum::body::Body::empty())
            .unwrap();
        app.clone().oneshot(req).await.unwrap().status()
    }

    // The paused clock only moves when every task waits, so "still pending after the
    // clock passed N" is a fact about the code, not about this machine's speed.
    #[tokio::test(start_paused = true)]
    async fn a_refusal_waits_the_delay_and_an_answer_does_not() {
        let tarpit = Arc::new(Tarpit::with(Duration::from_secs(1), 4));
        let app = app(tarpit.clone());
        let started = tokio::time::Instant::now();
        assert_eq!(call(&app, "/ok").await, StatusCode::OK);
        assert_eq!(started.elapsed(), Duration::ZERO);
        let refused = tokio::spawn({
            let app = app.clone();
            async move { call(&app, "/refused").await }
        });
        tokio::time::sleep(Duration::from_millis(999)).await;
        assert!(!refused.is_finished(), "sent before the delay");
        assert_eq!(tarpit.holding(), 1);
        tokio::time::sleep(Duration::from_millis(2)).await;
        assert_eq!(refused.await.unwrap(), StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(tarpit.holding(), 0, "the hold is given back");
    }

    #[tokio::test(start_paused = true)]
    async fn past_the_holds_a_refusal_is_sent_at_once() {
        let tarpit = Arc::new(Tarpit::with(Duration::from_secs(1), 2));
        let app = app(tarpit.clone());
        let held: Vec<_> = (0..2)
            .map(|_| {
                let app = app.clone();
                tokio::spawn(async move { call(&app, "/refused").await })
            })
            .collect();
        tokio::task::yield_now().await;
        while tarpit.holding() < 2 {
            tokio::task::yield_now().await;
        }
        let started = tokio::time::Instant::now();
        assert_eq!(call(&app, "/refused").await, StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(started.elapsed(), Duration::ZERO, "the third was not held");
        for h in held {
            assert_eq!(h.await.unwrap(), StatusCode::TOO_MANY_REQUESTS);
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_zero_delay_holds_nothing() {
        let tarpit = Arc::new(Tarpit::with(Duration::ZERO, 2));
        let app = app(tarpit.clone());
        let started = tokio::time::Instant::now();
        assert_eq!(call(&app, "/refused").await, StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(started.elapsed(), Duration::ZERO);
    }

    #[tokio::test(start_paused = true)]
    async fn a_peer_holding_many_connections_is_refused_at_once() {
        use crate::connections::{AddressSlots, HOLD_REFUSALS_UP_TO, PeerConnections};
        let tarpit = Arc::new(Tarpit::with(Duration::from_secs(1), 4));
        let app = app(tarpit.clone());
        let slots = AddressSlots::new(64);
        let peer: std::net::IpAddr = "203.0.113.5".parse().unwrap();
        let held: Vec<_> = (0..=HOLD_REFUSALS_UP_TO)
            .map(|_| slots.try_take(peer).unwrap())
            .collect();
        let mut req = Request::builder()
            .uri("/refused")
            .body(axum::body::Body::empty())
            .unwrap();
        req.extensions_mut()
            .insert(PeerConnections::capped(peer, slots.clone()));
        let started = tokio::time::Instant::now();
        let res = app.clone().oneshot(req).await.unwrap();
        assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(started.elapsed(), Duration::ZERO, "not held");
        assert_eq!(res.headers()["connection"], "close", "nor kept");
        // The same peer with a browser's share of connections is held again.
        drop(held);
        let mut req = Request::builder()
            .uri("/refused")
            .body(axum::body::Body::empty())
            .unwrap();
        req.extensions_mut()
            .insert(PeerConnections::capped(peer, slots));
        let res = app.oneshot(req).await.unwrap();
        assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(started.elapsed(), Duration::from_secs(1), "held");
    }
}
