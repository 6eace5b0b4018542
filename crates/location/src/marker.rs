//! Time markers: the parenthesised qualifiers MA puts after a place — `(early)`, `(mid)`,
//! `(later)`, combinations such as `(early/mid)`, and year spans such as `(1990-1995)` —
//! and how they become and order step labels.

use crate::normalize::name_key;

/// Words that place a step in a band's history, with the label they stand for.
fn period_word(word: &str) -> Option<&'static str> {
    Some(match word {
        "early" | "earlier" | "earliest" | "formerly" | "former" | "originally" | "initially"
        | "first" => "early",
        "mid" | "middle" => "mid",
        "later" | "late" | "latest" | "now" | "current" | "currently" | "present" | "today"
        | "recently" | "last" => "later",
        _ => return None,
    })
}

/// Words that may sit between period words or years without changing the meaning.
fn is_filler(word: &str) -> bool {
    matches!(
        word,
        "to" | "and"
            | "then"
            | "years"
            | "era"
            | "period"
            | "days"
            | "since"
            | "until"
            | "till"
            | "from"
            | "onwards"
            | "on"
            | "c"
            | "ca"
            | "circa"
    )
}

/// A year token: `1995`, `1990s`, `90s` (from `'90s`). Returns the full year.
fn year(word: &str) -> Option<u32> {
    let digits = word.strip_suffix('s').unwrap_or(word);
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u32 = digits.parse().ok()?;
    match digits.len() {
        4 if (1900..=2099).contains(&n) => Some(n),
        // Two digits only with the decade `s`: a bare `(90)` is more likely something else.
        2 if word.ends_with('s') => Some(if n >= 30 { 1900 + n } else { 2000 + n }),
        _ => None,
    }
}

/// The step label for the content of a parenthesised group, or `None` when the group is
/// not a time marker (then it is place information such as a region).
///
/// Period words give a normalised label (`"early"`, `"early/mid"`); anything with a year
/// keeps its written form (`"1990-1995"`, `"early 90s"`), whitespace collapsed.
pub(crate) fn label(content: &str) -> Option<String> {
    let key = name_key(content);
    let mut periods: Vec<&'static str> = Vec::new();
    let mut has_year = false;
    for word in key.split(' ').filter(|w| !w.is_empty()) {
        if let Some(p) = period_word(word) {
            if !periods.contains(&p) {
                periods.push(p);
            }
        } else if year(word).is_some() {
            has_year = true;
        } else if !is_filler(word) {
            return None;
        }
    }
    if has_year {
        Some(content.split_whitespace().collect::<Vec<_>>().join(" "))
    } else if periods.is_empty() {
        None
    } else {
        Some(periods.join("/"))
    }
}

/// A sort key for a label, when it has one: period labels by their first period
/// (early < mid < later), year labels by their first year. The two kinds are kept
/// apart so that steps are only reordered when all of them speak the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Rank {
    Period(u8),
    Year(u32),
}

pub(crate) fn rank(label: &str) -> Option<Rank> {
    let key = name_key(label);
    let words = key.split(' ');
    if let Some(y) = words.clone().find_map(year) {
        return Some(Rank::Year(y));
    }
    words
        .filter_map(period_word)
        .map(|p| match p {
            "early" => Rank::Period(0),
            "mid" => Rank::Period(1),
            _ => Rank::Period(2),
        })
        .next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn period_labels() {
        assert_eq!(label("early").as_deref(), Some("early"));
        assert_eq!(label(" Later ").as_deref(), Some("later"));
        assert_eq!(label("late").as_deref(), Some("later"));
        assert_eq!(label("early/mid").as_deref(), Some("early/mid"));
        assert_eq!(label("mid to later").as_deref(), Some("mid/later"));
        assert_eq!(label("early years").as_deref(), Some("early"));
    }

    #[test]
    fn year_labels() {
        assert_eq!(label("1990-1995").as_deref(), Some("1990-1995"));
        assert_eq!(label("since  2004").as_deref(), Some("since 2004"));
        assert_eq!(label("early '90s").as_deref(), Some("early '90s"));
    }

    #[test]
    fn place_info_is_not_a_marker() {
        assert_eq!(label("Syracuse"), None);
        assert_eq!(label("Baden Württemberg"), None);
        assert_eq!(label("90"), None);
        assert_eq!(label(""), None);
        assert_eq!(label("and"), None);
    }

    #[test]
    fn ranks_order_periods_and_years() {
        assert!(rank("early") < rank("mid/later"));
        assert!(rank("mid") < rank("later"));
        assert!(rank("1990-1995") < rank("since 2004"));
        assert_eq!(rank("somewhere"), None);
    }
}
