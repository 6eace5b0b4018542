//! A whole request body within `HTTP_BODY_TIMEOUT_SECS` (issue 31).
//!
//! The header read has its own timeout (`HTTP_HEADER_TIMEOUT_SECS`), but a body trickled a
//! byte every few seconds kept its connection — and, for a login, nothing else — for the
//! handler's 30 s limit. Every request body except the bulk import's (which streams large
//! documents under its own `IMPORT_TIME_LIMIT_SECS`) now has one deadline for the whole
//! body, counted from the moment the handler chain starts: past it the body read fails,
//! the answer is a JSON 408 and the connection is closed.

use crate::error::ApiError;
use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body::{Frame, SizeHint};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::time::Sleep;

/// A body that fails once its deadline passes before its end.
struct DeadlineBody {
    inner: Body,
    deadline: Pin<Box<Sleep>>,
    expired: Arc<AtomicBool>,
}

impl HttpBody for DeadlineBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        if self.deadline.as_mut().poll(cx).is_ready() {
            self.expired.store(true, Ordering::Release);
            return Poll::Ready(Some(Err(axum::Error::new(BodyTimedOut))));
        }
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// The error a late body fails with.
#[derive(Debug, thiserror::Error)]
#[error("the request body did not arrive in time")]
pub struct BodyTimedOut;

/// The middleware; `limit` is `HTTP_BODY_TIMEOUT_SECS`.
pub async fn limit_body_time(State(limit): State<Duration>, req: Request, next: Next) -> Response {
    if req.uri().path() == crate::import::PATH || req.body().is_end_stream() {
        return next.run(req).await;
    }
    let expired = Arc::new(AtomicBool::new(false));
    let (parts, body) = req.into_parts();
    let body = Body::new(DeadlineBody {
        inner: body,
        deadline: Box::pin(tokio::time::sleep(limit)),
        expired: Arc::clone(&expired),
    });
    let response = next.run(Request::from_parts(parts, body)).await;
    if !expired.load(Ordering::Acquire) {
        return response;
    }
    tracing::info!("request body not received within the body timeout; closing");
    let mut late =
        ApiError::refused(StatusCode::REQUEST_TIMEOUT, BodyTimedOut.to_string()).into_response();
    late.headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    late
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use axum::Router;
    use axum::routing::post;
    use futures::StreamExt;
    use tower::ServiceExt;

    fn app() -> Router {
        Router::new()
            .route(
                "/echo",
                post(|body: Bytes| async move { format!("{} bytes", body.len()) }),
            )
            .layer(axum::middleware::from_fn_with_state(
                Duration::from_secs(10),
                limit_body_time,
            ))
    }

    // A body that sends one byte, then nothing for a minute.
    fn trickle() -> Body {
        let stream = futures::stream::iter([Ok::<_, std::io::Error>(Bytes::from_static(b"{"))])
            .chain(futures::stream::once(async {
                tokio::time::sleep(Duration::from_secs(60)).await;
                Ok(Bytes::from_static(b"}"))
            }));
        Body::from_stream(stream)
    }

    #[tokio::test(start_paused = true)]
    async fn a_trickled_body_is_a_408_that_closes_the_connection() {
        let res = app()
            .oneshot(Request::post("/echo").body(trickle()).unwrap())
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::REQUEST_TIMEOUT);
        assert_eq!(res.headers()[header::CONNECTION], "close");
        let bytes = axum::body::to_bytes(res.into_body(), 1 << 16)
            .await
            .unwrap();
        let body: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(body["error"]["code"], "bad_request");
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_in_time_and_an_empty_one_pass() {
        let res = app()
            .oneshot(Request::post("/echo").body(Body::from("{}")).unwrap())
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::OK);
        let res = app()
            .oneshot(Request::post("/echo").body(Body::empty()).unwrap())
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::OK);
    }
}
