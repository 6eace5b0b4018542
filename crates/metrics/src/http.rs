//! HTTP requests of `serve`: a counter and a latency histogram per route pattern.

use axum::extract::{MatchedPath, Request};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::Response;
use metrics::{Unit, counter, describe_counter, describe_histogram, histogram};
use std::time::Instant;

/// Requests answered, by `method`, `route` and `status`.
pub const REQUESTS: &str = "bandmap_http_requests_total";
/// Time to the response head, by `method` and `route`.
pub const DURATION: &str = "bandmap_http_request_duration_seconds";
/// Connections closed at once because their client address held its share
/// (`HTTP_MAX_CONNECTIONS_PER_ADDRESS`).
pub const REFUSED_CONNECTIONS: &str = "bandmap_http_connections_refused_total";
/// Route label of a request no route matched (404s, probes of random paths).
pub const UNMATCHED: &str = "unmatched";

pub(crate) fn describe() {
    describe_counter!(
        REQUESTS,
        Unit::Count,
        "HTTP requests answered, by method, route pattern and status code"
    );
    describe_histogram!(
        DURATION,
        Unit::Seconds,
        "HTTP request latency to the response head, by method and route pattern"
    );
    describe_counter!(
        REFUSED_CONNECTIONS,
        Unit::Count,
        "connections closed on accept: their client address held HTTP_MAX_CONNECTIONS_PER_ADDRESS already"
    );
}

/// Counts a connection closed on accept (its address held its share).
pub fn connection_refused_per_address() {
    counter!(REFUSED_CONNECTIONS).increment(1);
}

/// Records one answered request. `route` must be a route *pattern* (see [`route_label`]),
/// never the raw path.
pub fn request(method: &'static str, route: String, status: u16, seconds: f64) {
    counter!(REQUESTS, "method" => method, "route" => route.clone(), "status" => status.to_string())
        .increment(1);
    histogram!(DURATION, "method" => method, "route" => route).record(seconds);
}

/// The route label of an axum route pattern: parameters written `:name` and wildcards
/// `*name` (`/api/bands/{ma_id}` → `/api/bands/:ma_id`), so label values hold no braces,
/// which simple text-format readers (e.g. the `prometheus-parse` crate) mistake for the
/// end of the label set.
pub fn route_label(pattern: &str) -> String {
    pattern
        .replace("{*", "*")
        .replace('{', ":")
        .replace('}', "")
}

/// The method as a label: the standard ones by name, anything else `other`.
pub fn method_label(m: &Method) -> &'static str {
    match *m {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    }
}

/// Axum middleware (`Router::layer(axum::middleware::from_fn(track))`): labels each request
/// with its matched route pattern (axum's [`MatchedPath`]), or [`UNMATCHED`].
pub async fn track(req: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = method_label(req.method());
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| UNMATCHED.to_string(), |p| route_label(p.as_str()));
    let response = next.run(req).await;
    request(
        method,
        route,
        response.status().as_u16(),
        started.elapsed().as_secs_f64(),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn route_labels_have_no_braces() {
        assert_eq!(route_label("/api/bands/{ma_id}"), "/api/bands/:ma_id");
        assert_eq!(route_label("/admin/{*rest}"), "/admin/*rest");
        assert_eq!(route_label("/api/clusters"), "/api/clusters");
    }
}
