//! Rate-limit headers of an OpenAI-compatible answer: `retry-after` (seconds) and
//! `x-ratelimit-{limit,remaining,reset}-{requests,tokens}`, resets written as Go-style
//! durations (`2m59.56s`, `7.66s`, `450ms`).

use reqwest::header::HeaderMap;
use std::time::Duration;

/// What the provider said about its limits.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RateHeaders {
    /// `retry-after`.
    pub retry_after: Option<Duration>,
    /// `x-ratelimit-remaining-requests`.
    pub remaining_requests: Option<u64>,
    /// `x-ratelimit-remaining-tokens`.
    pub remaining_tokens: Option<u64>,
    /// `x-ratelimit-reset-requests`.
    pub reset_requests: Option<Duration>,
    /// `x-ratelimit-reset-tokens`.
    pub reset_tokens: Option<Duration>,
}

impl RateHeaders {
    /// Reads the headers; unreadable values are ignored.
    #[must_use]
    pub fn from_headers(h: &HeaderMap) -> Self {
        let text = |name: &str| h.get(name).and_then(|v| v.to_str().ok()).map(str::trim);
        Self {
            retry_after: text("retry-after").and_then(parse_seconds),
            remaining_requests: text("x-ratelimit-remaining-requests").and_then(|v| v.parse().ok()),
            remaining_tokens: text("x-ratelimit-remaining-tokens").and_then(|v| v.parse().ok()),
            reset_requests: text("x-ratelimit-reset-requests").and_then(parse_duration),
            reset_tokens: text("x-ratelimit-reset-tokens").and_then(parse_duration),
        }
    }

    /// How long the provider asks us to keep off this model, if it said so: `retry-after`,
    /// else the reset of an exhausted window.
    #[must_use]
    pub fn pause(&self) -> Option<Duration> {
        if self.retry_after.is_some() {
            return self.retry_after;
        }
        let exhausted =
            |rem: Option<u64>, reset: Option<Duration>| rem.filter(|r| *r == 0).and(reset);
        match (
            exhausted(self.remaining_requests, self.reset_requests),
            exhausted(self.remaining_tokens, self.reset_tokens),
        ) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        }
    }
}

/// `retry-after` in (possibly fractional) seconds.
fn parse_seconds(v: &str) -> Option<Duration> {
    v.parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(|s| Duration::from_secs_f64(s.min(86_400.0)))
        .or_else(|| parse_duration(v))
}

/// A Go-style duration: a sequence of `<number><unit>` with units h, m, s, ms, us, ns.
#[must_use]
pub fn parse_duration(v: &str) -> Option<Duration> {
    let mut rest = v.trim();
    if rest.is_empty() {
        return None;
    }
    let mut total = 0.0_f64;
    while !rest.is_empty() {
        let num_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let number: f64 = rest[..num_end].parse().ok()?;
        rest = &rest[num_end..];
        let unit_end = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let factor = match &rest[..unit_end] {
            "h" => 3600.0,
            "m" => 60.0,
            "s" | "" => 1.0,
            "ms" => 1e-3,
            "us" | "µs" => 1e-6,
            "ns" => 1e-9,
            _ => return None,
        };
        total += number * factor;
        rest = &rest[unit_end..];
    }
    (total.is_finite() && total >= 0.0).then(|| Duration::from_secs_f64(total.min(86_400.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_durations_parse() {
        assert_eq!(parse_duration("7.66s"), Some(Duration::from_millis(7660)));
        assert_eq!(
            parse_duration("2m59.5s"),
            Some(Duration::from_millis(179_500))
        );
        assert_eq!(parse_duration("450ms"), Some(Duration::from_millis(450)));
        assert_eq!(parse_duration("1h"), Some(Duration::from_secs(3600)));
        assert_eq!(parse_duration("abc"), None);
        assert_eq!(parse_seconds("3"), Some(Duration::from_secs(3)));
    }

    #[test]
    fn pause_prefers_retry_after_then_exhausted_windows() {
        let h = RateHeaders {
            remaining_tokens: Some(0),
            reset_tokens: Some(Duration::from_secs(7)),
            remaining_requests: Some(10),
            reset_requests: Some(Duration::from_secs(100)),
            ..RateHeaders::default()
        };
        assert_eq!(h.pause(), Some(Duration::from_secs(7)));
        let h = RateHeaders {
            retry_after: Some(Duration::from_secs(2)),
            ..h
        };
        assert_eq!(h.pause(), Some(Duration::from_secs(2)));
        assert_eq!(RateHeaders::default().pause(), None);
    }
}
