//! Near spellings (issue 30): the slips bands make in a name the data knows — a letter
//! doubled or undoubled ("Boulogne-Bilancourt", "Norköping"), "ae"/"oe"/"ue" for
//! "ä"/"ö"/"ü" ("Moenchengladbach"), a letter dropped, one too many, or two neighbours
//! swapped — and "St." for Saint/Sankt/Sint/San. The first letter is never the slip:
//! "Augsdorf" is no misspelt Haugsdorf.
//!
//! The variants of the written name are generated and looked up in the name index (a few
//! hundred hash probes, no scan). Which slips count, and when a variant is accepted,
//! is the matcher's business (`matcher::near_spelling`).

use bandmap_fold::fold;

/// A written name shorter than this (in letters) gets no dropped, extra or swapped
/// letter: "Bourg" is one letter from too many things.
pub(crate) const LOOSE_MIN_CHARS: usize = 7;

/// How a variant differs from the written name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Slip {
    /// A letter doubled or undoubled, or "ae"/"oe"/"ue" written for "ä"/"ö"/"ü": the same
    /// name spelt another way.
    Spelling,
    /// A letter dropped, one letter too many, or two neighbouring letters swapped: a typo,
    /// which only a region may confirm.
    Typo,
}

/// Every variant of `key` (a folded name) one slip away, with the slip. Variants keep
/// the first letter, and a variant that is also a `Spelling` is reported as one.
pub(crate) fn variants(key: &str) -> Vec<(String, Slip)> {
    let c: Vec<char> = key.chars().collect();
    let n = c.len();
    let mut out: Vec<(String, Slip)> = Vec::new();
    let mut push = |v: Vec<char>, slip: Slip| {
        let s: String = v.into_iter().collect();
        if s != key && !s.trim().is_empty() {
            out.push((s, slip));
        }
    };
    for i in 0..n {
        if c[i].is_alphabetic() {
            // Doubled …
            let mut v = c.clone();
            v.insert(i, c[i]);
            push(v, Slip::Spelling);
        }
        // … and undoubled.
        if i + 1 < n && c[i] == c[i + 1] && c[i].is_alphabetic() {
            let mut v = c.clone();
            v.remove(i);
            push(v, Slip::Spelling);
        }
        // "oe" → "o" (and "ae", "ue"), one at a time.
        if i + 1 < n && c[i + 1] == 'e' && matches!(c[i], 'a' | 'o' | 'u') {
            let mut v = c.clone();
            v.remove(i + 1);
            push(v, Slip::Spelling);
        }
    }
    let umlauts: String = key.replace("ae", "a").replace("oe", "o").replace("ue", "u");
    push(umlauts.chars().collect(), Slip::Spelling);
    if n >= LOOSE_MIN_CHARS {
        let alphabet = alphabet_of(&c);
        for i in 1..=n {
            // A letter dropped: put one back (never before the first).
            for &l in &alphabet {
                let mut v = c.clone();
                v.insert(i, l);
                push(v, Slip::Typo);
            }
            // A letter too many.
            if i < n {
                let mut v = c.clone();
                v.remove(i);
                push(v, Slip::Typo);
            }
            // Two neighbours swapped.
            if i + 1 < n && c[i] != c[i + 1] {
                let mut v = c.clone();
                v.swap(i, i + 1);
                push(v, Slip::Typo);
            }
        }
    }
    out.sort();
    out.dedup_by(|a, b| a.0 == b.0);
    out
}

/// The lower-case letters of the name's script (Latin, Cyrillic or Greek).
fn alphabet_of(c: &[char]) -> Vec<char> {
    if c.iter().any(|ch| ('\u{0400}'..='\u{04ff}').contains(ch)) {
        ('а'..='я').collect()
    } else if c.iter().any(|ch| ('\u{0370}'..='\u{03ff}').contains(ch)) {
        ('α'..='ω').collect()
    } else {
        ('a'..='z').collect()
    }
}

/// "St."/"St"/"Ste" at the start of a name, written out: every reading the upstream's
/// abbreviation may stand for (folded keys).
pub(crate) fn saint_readings(city: &str) -> Vec<String> {
    let key = fold(city);
    let Some((first, rest)) = key.split_once(' ') else {
        return Vec::new();
    };
    let readings: &[&str] = match first {
        "st" => &["saint", "sankt", "sint", "san", "santo", "sveti"],
        "ste" => &["sainte"],
        _ => return Vec::new(),
    };
    readings.iter().map(|r| format!("{r} {rest}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn slip(written: &str, known: &str) -> Option<Slip> {
        variants(written)
            .into_iter()
            .find(|(v, _)| v == known)
            .map(|(_, s)| s)
    }

    #[test]
    fn the_upstream_slips_reach_the_known_name() {
        assert_eq!(
            slip("boulogne bilancourt", "boulogne billancourt"),
            Some(Slip::Spelling)
        );
        assert_eq!(slip("norkoping", "norrkoping"), Some(Slip::Spelling));
        assert_eq!(slip("thessaloniki", "thesaloniki"), Some(Slip::Spelling));
        assert_eq!(
            slip("moenchengladbach", "monchengladbach"),
            Some(Slip::Spelling)
        );
        assert_eq!(slip("duesseldorf", "dusseldorf"), Some(Slip::Spelling));
        assert_eq!(slip("rovanemi", "rovaniemi"), Some(Slip::Typo));
        assert_eq!(slip("eskiltuna", "eskilstuna"), Some(Slip::Typo));
        assert_eq!(slip("lapeenranta", "lappeenranta"), Some(Slip::Spelling));
    }

    #[test]
    fn what_is_no_slip() {
        assert_eq!(slip("augsdorf", "haugsdorf"), None, "first letter");
        assert_eq!(slip("bourg", "bourgs"), None, "too short for a typo");
        assert_eq!(slip("nijmegan", "nijmegen"), None, "a changed letter");
        assert_eq!(slip("zaporizhia", "zaporizhzhia"), None, "two letters");
        assert!(variants("").is_empty());
    }

    #[test]
    fn saint_is_read_every_way() {
        assert!(saint_readings("St. Pölten").contains(&"sankt polten".to_string()));
        assert!(saint_readings("St-Étienne").contains(&"saint etienne".to_string()));
        assert_eq!(
            saint_readings("Ste. Maxime"),
            vec!["sainte maxime".to_string()]
        );
        assert!(saint_readings("Stuttgart").is_empty());
        assert!(saint_readings("St").is_empty());
    }

    proptest! {
        #[test]
        fn a_dropped_letter_is_found_again(name in "[a-z]{8,12}", at in 1usize..8) {
            let written: String = name.chars().enumerate().filter(|(i, _)| *i != at).map(|(_, c)| c).collect();
            prop_assert!(variants(&written).iter().any(|(v, _)| *v == name));
        }

        #[test]
        fn a_doubled_letter_goes_both_ways(name in "[a-z]{3,12}", at in 0usize..3) {
            let mut doubled: Vec<char> = name.chars().collect();
            doubled.insert(at, doubled[at]);
            let doubled: String = doubled.into_iter().collect();
            prop_assert_eq!(slip(&name, &doubled), Some(Slip::Spelling));
            prop_assert_eq!(slip(&doubled, &name), Some(Slip::Spelling));
        }

        #[test]
        fn variants_keep_the_first_letter_and_differ(name in "[a-zäö ]{1,14}") {
            let first = name.chars().next();
            for (v, _) in variants(&name) {
                prop_assert_ne!(&v, &name);
                prop_assert_eq!(v.chars().next(), first, "{:?} -> {:?}", name, v);
            }
        }
    }
}
