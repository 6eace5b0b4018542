//! Pure scheduling decisions: rule 1 (is a full crawl due?), the daily 03:00 UTC tick, the
//! months an incremental crawl reads, and checkpoint values.

use chrono::{DateTime, Datelike, Duration, NaiveDate, NaiveDateTime, NaiveTime, TimeZone, Utc};

/// Hour (UTC) of the daily rule-1 check.
pub const DAILY_TICK_HOUR: u32 = 3;
/// Most months an incremental crawl reads back (older gaps are the full crawl's job).
pub const MAX_MONTHS_BACK: usize = 12;

/// Rule 1: a full crawl is due when `last_full_crawl_at` is missing (CONTRACT §10) or older
/// than `interval_days`.
pub fn full_crawl_due(last: Option<DateTime<Utc>>, now: DateTime<Utc>, interval_days: u32) -> bool {
    match last {
        None => true,
        Some(last) => now - last > Duration::days(i64::from(interval_days)),
    }
}

/// The first 03:00 UTC strictly after `now`.
pub fn next_daily_tick(now: DateTime<Utc>) -> DateTime<Utc> {
    let tick = NaiveTime::from_hms_opt(DAILY_TICK_HOUR, 0, 0).unwrap_or_default();
    let today = Utc.from_utc_datetime(&now.date_naive().and_time(tick));
    if today > now {
        today
    } else {
        today + Duration::days(1)
    }
}

/// Reads a checkpoint value: RFC 3339, `YYYY-MM-DD HH:MM:SS` or `YYYY-MM-DD` (UTC).
/// Anything else counts as missing.
pub fn parse_checkpoint(value: &str) -> Option<DateTime<Utc>> {
    let v = value.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(v) {
        return Some(t.with_timezone(&Utc));
    }
    if let Ok(t) = NaiveDateTime::parse_from_str(v, "%Y-%m-%d %H:%M:%S") {
        return Some(Utc.from_utc_datetime(&t));
    }
    NaiveDate::parse_from_str(v, "%Y-%m-%d")
        .ok()
        .map(|d| Utc.from_utc_datetime(&d.and_time(NaiveTime::MIN)))
}

/// The value written to a checkpoint.
pub fn format_checkpoint(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// The months (year, month) an incremental crawl reads: from the checkpoint's month to
/// `now`'s month, inclusive, at most [`MAX_MONTHS_BACK`] (the most recent); only `now`'s
/// month when there is no checkpoint or it lies in the future.
pub fn months_since(checkpoint: Option<DateTime<Utc>>, now: DateTime<Utc>) -> Vec<(i32, u32)> {
    let end = (now.year(), now.month());
    let start = match checkpoint {
        Some(c) if c <= now => (c.year(), c.month()),
        _ => end,
    };
    let mut months = Vec::new();
    let mut m = start;
    while m <= end {
        months.push(m);
        m = if m.1 == 12 {
            (m.0 + 1, 1)
        } else {
            (m.0, m.1 + 1)
        };
    }
    let skip = months.len().saturating_sub(MAX_MONTHS_BACK);
    months.split_off(skip)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> DateTime<Utc> {
        parse_checkpoint(s).unwrap()
    }

    #[test]
    fn rule_1_table() {
        let now = t("2026-11-22T03:00:00Z");
        let cases: &[(Option<&str>, u32, bool)] = &[
            (None, 60, true),
            (Some("2026-11-21T03:00:00Z"), 60, false),
            (Some("2026-09-23T03:00:00Z"), 60, false),
            (Some("2026-09-23T02:59:59Z"), 60, true),
            (Some("2026-01-01T00:00:00Z"), 60, true),
            (Some("2026-11-22T02:00:00Z"), 0, true),
            (Some("2026-11-22T03:00:00Z"), 0, false),
            (Some("2027-01-01T00:00:00Z"), 60, false),
        ];
        for (last, days, due) in cases {
            assert_eq!(
                full_crawl_due(last.map(t), now, *days),
                *due,
                "last={last:?} days={days}"
            );
        }
    }

    #[test]
    fn daily_tick_is_next_0300_utc() {
        assert_eq!(
            next_daily_tick(t("2026-11-22T02:59:59Z")),
            t("2026-11-22T03:00:00Z")
        );
        assert_eq!(
            next_daily_tick(t("2026-11-22T03:00:00Z")),
            t("2026-11-23T03:00:00Z")
        );
        assert_eq!(
            next_daily_tick(t("2026-12-31T23:00:00Z")),
            t("2027-01-01T03:00:00Z")
        );
    }

    #[test]
    fn checkpoint_formats() {
        assert_eq!(t("2026-11-01"), t("2026-11-01T00:00:00Z"));
        assert_eq!(t("2026-11-01 10:00:00"), t("2026-11-01T10:00:00+00:00"));
        assert_eq!(parse_checkpoint("garbage"), None);
        let now = t("2026-11-22T02:43:14Z");
        assert_eq!(parse_checkpoint(&format_checkpoint(now)), Some(now));
    }

    #[test]
    fn months_table() {
        let now = t("2026-11-22T00:00:00Z");
        assert_eq!(months_since(None, now), vec![(2026, 11)]);
        assert_eq!(months_since(Some(t("2026-11-01")), now), vec![(2026, 11)]);
        assert_eq!(
            months_since(Some(t("2026-09-30")), now),
            vec![(2026, 9), (2026, 10), (2026, 11)]
        );
        assert_eq!(
            months_since(Some(t("2025-12-15")), t("2026-01-02T00:00:00Z")),
            vec![(2025, 12), (2026, 1)]
        );
        let long = months_since(Some(t("2020-01-01")), now);
        assert_eq!(long.len(), MAX_MONTHS_BACK);
        assert_eq!(long.first(), Some(&(2025, 12)));
        assert_eq!(months_since(Some(t("2027-01-01")), now), vec![(2026, 11)]);
    }
}
