//! Text hygiene shared by the parser and the country table: cleaning upstream text for
//! storage (`clean`, `trim_name`) and folding it for comparisons only (`fold`, `name_key`).
//! Output text keeps its diacritics; only keys are folded.

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// Lowercase and strip accents, for matching keys (`"Zürich"` → `"zurich"`), keeping
/// punctuation: the workspace's one folding, [`bandmap_fold::fold_text`].
pub use bandmap_fold::fold_text as fold;

/// A looser key for names: `fold`, with dots and apostrophes removed and every other
/// non-alphanumeric character read as a space, so `"U.K."`, `"Baden-Württemberg"` and
/// `"Baden Württemberg"` compare equal to `"UK"` and each other.
pub(crate) fn name_key(s: &str) -> String {
    let folded = fold(s);
    let mut out = String::with_capacity(folded.len());
    let mut space = false;
    for c in folded.chars() {
        if c.is_alphanumeric() {
            if space && !out.is_empty() {
                out.push(' ');
            }
            space = false;
            out.push(c);
        } else if !matches!(c, '.' | '\'' | '’' | '`') {
            space = true;
        }
    }
    out
}

/// Characters that carry nothing but break comparisons and display (zero-width spaces,
/// joiners, BOM, soft hyphen, bidi marks).
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}' | '\u{FEFF}'
    )
}

/// Clean upstream text for storage: control characters become spaces, invisible
/// characters go, the result is NFC and its whitespace collapsed and trimmed.
///
/// Invisible characters are removed *before* NFC so that a base letter and a combining
/// accent they separated still compose.
pub(crate) fn clean(s: &str) -> String {
    let filtered: String = s
        .chars()
        .filter(|&c| !is_invisible(c))
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let mut out = String::with_capacity(filtered.len());
    let mut space = false;
    for c in filtered.nfc() {
        if c.is_whitespace() {
            space = !out.is_empty();
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        out.push(c);
    }
    out
}

/// Trim the punctuation around a name: `"  «Oslo»  "` → `"Oslo"`, `"-Bergen-"` → `"Bergen"`.
///
/// A leading apostrophe is kept (`'s-Hertogenbosch`), and so is a trailing dot that ends
/// a short abbreviation (`St.`, `D.C.`), but not a sentence dot (`Oslo.`).
pub(crate) fn trim_name(s: &str) -> &str {
    let start = s
        .char_indices()
        .find(|&(_, c)| c.is_alphanumeric() || c == '\'' || c == '’')
        .map_or(s.len(), |(i, _)| i);
    let s = &s[start..];
    let end = s
        .char_indices()
        .rev()
        .find(|&(_, c)| c.is_alphanumeric() || is_combining_mark(c))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let core = &s[..end];
    if s[end..].starts_with('.') && is_abbreviation(core) {
        &s[..end + 1]
    } else {
        core
    }
}

/// Whether the last word of `core` looks like an abbreviation that owns a final dot.
fn is_abbreviation(core: &str) -> bool {
    let word = core.rsplit(' ').next().unwrap_or(core);
    word.contains('.') || (1..=3).contains(&word.chars().count())
}

/// Whether a trimmed name is usable: it has a letter or digit and is not a placeholder.
pub(crate) fn is_meaningful(name: &str) -> bool {
    name.chars().any(char::is_alphanumeric) && !is_placeholder(name)
}

/// Placeholders MA and its editors write instead of a place.
fn is_placeholder(name: &str) -> bool {
    matches!(
        name_key(name).as_str(),
        "unknown"
            | "unk"
            | "n a"
            | "na"
            | "none"
            | "unspecified"
            | "not specified"
            | "not known"
            | "various"
            | "tba"
            | "tbd"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fold_strips_accents_and_case() {
        assert_eq!(fold("Zürich"), "zurich");
        assert_eq!(fold("  Bø   I Telemark "), "bo i telemark");
        assert_eq!(fold("Łódź"), "lodz");
        assert_eq!(fold("İstanbul"), "istanbul");
        assert_eq!(fold("Diyarbakır"), "diyarbakir");
        assert_eq!(fold("Αθήνα"), "αθηνα");
        assert_eq!(fold("Санкт-Петербург"), "санкт-петербург");
        assert_eq!(fold("Straße"), "strasse");
    }

    #[test]
    fn name_key_ignores_punctuation() {
        assert_eq!(name_key("U.K."), "uk");
        assert_eq!(name_key("Baden-Württemberg"), name_key("Baden Württemberg"));
    }

    #[test]
    fn clean_removes_controls_and_composes() {
        assert_eq!(clean("\u{0}Os\tlo\u{7f}  "), "Os lo");
        assert_eq!(clean("Ga\u{308}vle"), "Gävle");
        assert_eq!(clean("e\u{200B}\u{301}"), "é");
    }

    #[test]
    fn trim_name_keeps_meaningful_punctuation() {
        assert_eq!(trim_name(" \"Oslo\". "), "Oslo");
        assert_eq!(trim_name("'s-Hertogenbosch"), "'s-Hertogenbosch");
        assert_eq!(trim_name("Washington D.C."), "Washington D.C.");
        assert_eq!(trim_name("St."), "St.");
        assert_eq!(trim_name("?"), "");
    }
}
