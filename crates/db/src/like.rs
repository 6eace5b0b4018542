//! `LIKE … ESCAPE '\'` patterns built from user text, and read back: the admin list's
//! in-memory search turns the `%text%` patterns of its filters back into the text.

/// Escapes LIKE wildcards (`%`, `_`) and the escape character so `input` matches literally.
pub fn escape(input: &str) -> String {
    let mut out = String::with_capacity(input.len());
    for c in input.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The literal text of a `%text%` pattern (wildcards inside escaped as [`escape`] does), or
/// `None` for any other shape (an unescaped wildcard inside, a dangling escape).
pub fn contained_literal(pattern: &str) -> Option<String> {
    let inner = pattern.strip_prefix('%')?.strip_suffix('%')?;
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push(chars.next()?),
            '%' | '_' => return None,
            c => out.push(c),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn literal_of_contains_patterns() {
        assert_eq!(escape("50%_a\\b"), "50\\%\\_a\\\\b");
        assert_eq!(contained_literal("%storm%").as_deref(), Some("storm"));
        assert_eq!(contained_literal("%%").as_deref(), Some(""));
        assert_eq!(contained_literal("%50\\%%").as_deref(), Some("50%"));
        assert_eq!(contained_literal("%a\\_b\\\\%").as_deref(), Some("a_b\\"));
        assert_eq!(contained_literal("%a_b%"), None);
        assert_eq!(contained_literal("%a%b%"), None);
        assert_eq!(contained_literal("%a\\%"), None);
        assert_eq!(contained_literal("storm%"), None);
        assert_eq!(contained_literal("%"), None);
    }

    proptest! {
        /// Escaping then reading back gives the text, whatever it holds.
        #[test]
        fn escaped_text_round_trips(text in ".{0,40}") {
            let pattern = format!("%{}%", escape(&text));
            prop_assert_eq!(contained_literal(&pattern), Some(text));
        }

        /// Never panics, on any input.
        #[test]
        fn any_pattern_is_handled(pattern in "[%_\\\\a-c]{0,12}") {
            let _ = contained_literal(&pattern);
        }
    }
}
