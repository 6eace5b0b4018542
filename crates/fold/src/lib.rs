//! Accent and case folding, the one normal form of names for comparisons and lookup keys
//! (the gazetteer's place and region keys, the location parser's name keys). Output text
//! keeps its diacritics; only keys are folded.
//!
//! [`fold_char`] is the folding of one character; [`fold`] builds a lookup key from it
//! (words of letters and digits), [`fold_text`] keeps punctuation.

use unicode_normalization::char::{decompose_compatible, is_combining_mark};

/// Folds one character and hands the result to `emit`, one character at a time: lower
/// case, compatibility decomposition with combining marks dropped (`é` → `e`, `İ` → `i`,
/// `ﬁ` → `fi`), and the letters that do not decompose mapped by hand (ß→ss, ø→o, æ→ae,
/// ł→l, ı→i, final ς→σ …). Cyrillic and Greek letters stay in their script.
pub fn fold_char(c: char, emit: &mut impl FnMut(char)) {
    if c.is_ascii() {
        emit(c.to_ascii_lowercase());
        return;
    }
    // Decomposition char by char: marks are dropped, so NFD's reordering of marks does
    // not matter.
    decompose_compatible(c, |d| {
        if is_combining_mark(d) {
            return;
        }
        for l in d.to_lowercase() {
            if !is_combining_mark(l) {
                map_letter(l, emit);
            }
        }
    });
}

/// The letters that do not decompose into a base letter and marks.
fn map_letter(c: char, emit: &mut impl FnMut(char)) {
    let mapped: &str = match c {
        'ß' => "ss",
        'ø' => "o",
        'æ' => "ae",
        'œ' => "oe",
        'ł' | 'ŀ' => "l",
        'đ' | 'ð' => "d",
        'þ' => "th",
        'ı' => "i",
        'ħ' => "h",
        'ŧ' => "t",
        'ς' => "σ",
        _ => return emit(c),
    };
    mapped.chars().for_each(emit);
}

/// Folds a name to its lookup key: [`fold_char`], then every run of characters that are
/// not letters or digits (punctuation, white space) becomes one space, none at the ends.
pub fn fold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    fold_into(s, &mut out);
    out
}

/// [`fold`] into a reused buffer (cleared first), to spare an allocation per name.
pub fn fold_into(s: &str, out: &mut String) {
    out.clear();
    let mut space = false;
    let mut push = |c: char| {
        if c.is_alphanumeric() {
            if space && !out.is_empty() {
                out.push(' ');
            }
            space = false;
            out.push(c);
        } else {
            space = true;
        }
    };
    s.chars().for_each(|c| fold_char(c, &mut push));
}

/// Folds text for comparisons, keeping its punctuation: [`fold_char`], white space and
/// control characters collapsed to one space, none at the ends (`"Санкт-Петербург"` →
/// `"санкт-петербург"`).
pub fn fold_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    let mut push = |c: char| {
        if c.is_whitespace() || c.is_control() {
            space = !out.is_empty();
        } else {
            if space {
                out.push(' ');
                space = false;
            }
            out.push(c);
        }
    };
    s.chars().for_each(|c| fold_char(c, &mut push));
    out
}

#[cfg(test)]
mod tests;
