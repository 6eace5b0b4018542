//! Upstream time texts as instants. Upstream writes no zone (its server time, probably US
//! Eastern — unconfirmed); we store the wall-clock value as UTC, consistently, so texts from
//! the change lists and from band pages compare (to the minute).

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, TimeZone, Utc};

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// A change-list time (`November 20th, 05:42`) in the requested `year`.
pub fn parse_change_time(text: &str, year: i32) -> Option<DateTime<Utc>> {
    let (date, time) = text.trim().split_once(',')?;
    let mut words = date.split_whitespace();
    let month_word = words.next()?.to_ascii_lowercase();
    let month = MONTHS
        .iter()
        .position(|m| m.starts_with(&month_word) && month_word.len() >= 3)?;
    let day: u32 = words
        .next()?
        .trim_end_matches(|c: char| c.is_ascii_alphabetic())
        .parse()
        .ok()?;
    let time = NaiveTime::parse_from_str(time.trim(), "%H:%M").ok()?;
    let date = NaiveDate::from_ymd_opt(year, u32::try_from(month).ok()? + 1, day)?;
    Some(Utc.from_utc_datetime(&date.and_time(time)))
}

/// A band-page audit time (`2026-11-20 05:42:00`).
pub fn parse_page_time(text: &str) -> Option<DateTime<Utc>> {
    NaiveDateTime::parse_from_str(text.trim(), "%Y-%m-%d %H:%M:%S")
        .ok()
        .map(|t| Utc.from_utc_datetime(&t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn change_and_page_times_agree() {
        let a = parse_change_time("November 20th, 05:42", 2026).unwrap();
        let b = parse_page_time("2026-11-20 05:42:00").unwrap();
        assert_eq!(a, b);
        assert!(parse_change_time("May 1st, 09:10", 2019).is_some());
        assert!(parse_change_time("February 31st, 09:10", 2019).is_none());
        assert!(parse_change_time("garbage", 2019).is_none());
        assert!(parse_change_time("Nov 2nd, 25:10", 2019).is_none());
        assert!(parse_page_time("N/A").is_none());
    }
}
