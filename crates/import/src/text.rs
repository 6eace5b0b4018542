//! Text hygiene of every input path (the import and the HTTP parameters).

/// Removes control characters (U+0000–U+001F, U+007F); `keep_newlines` keeps tab and
/// newline for long text fields.
pub fn clean_text(input: &str, keep_newlines: bool) -> String {
    input
        .chars()
        .filter(|c| {
            let control = (*c as u32) < 0x20 || *c == '\u{7f}';
            !control || (keep_newlines && matches!(c, '\t' | '\n'))
        })
        .collect()
}
