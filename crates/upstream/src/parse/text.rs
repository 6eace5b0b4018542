//! Small string helpers shared by the parsers: tag stripping, entity decoding, link and id
//! extraction from the HTML snippets MA puts in its JSON cells, and text of DOM elements.

use scraper::{ElementRef, Node};

/// Decode HTML entities (`&amp;`, `&#039;`, `&nbsp;`…).
pub(crate) fn decode(s: &str) -> String {
    if s.contains('&') {
        html_escape::decode_html_entities(s).into_owned()
    } else {
        s.to_owned()
    }
}

/// Collapse runs of whitespace (including non-breaking spaces) into one space and trim.
pub(crate) fn squash(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split(|c: char| c.is_whitespace() || c == '\u{a0}') {
        if word.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Remove tags, decode entities and squash whitespace: the visible text of an HTML snippet.
pub(crate) fn strip_tags(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(lt) = rest.find('<') {
        out.push_str(&rest[..lt]);
        match rest[lt..].find('>') {
            Some(gt) => {
                out.push(' ');
                rest = &rest[lt + gt + 1..];
            }
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    squash(&decode(&out))
}

/// The first `<a href=…>text</a>` of a snippet: (href, visible text). Accepts single- and
/// double-quoted and unquoted `href` values.
pub(crate) fn first_link(html: &str) -> Option<(String, String)> {
    let lower = html.to_ascii_lowercase();
    let a = find_tag(&lower, "<a")?;
    let tag_end = a + lower[a..].find('>')?;
    let tag = &html[a..tag_end];
    let href = attr(tag, "href")?;
    let close = lower[tag_end..]
        .find("</a")
        .map_or(html.len(), |i| tag_end + i);
    let text = strip_tags(&html[tag_end + 1..close]);
    Some((decode(&href), text))
}

/// Position of an opening tag `name` (e.g. `<a`) followed by whitespace or `>`.
fn find_tag(lower: &str, name: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = lower[from..].find(name) {
        let at = from + i;
        let next = lower[at + name.len()..].chars().next();
        if matches!(next, Some(c) if c.is_ascii_whitespace() || c == '>') {
            return Some(at);
        }
        from = at + name.len();
    }
    None
}

/// Value of attribute `name` inside a tag's text.
pub(crate) fn attr(tag: &str, name: &str) -> Option<String> {
    let lower = tag.to_ascii_lowercase();
    let mut from = 0;
    while let Some(i) = lower[from..].find(name) {
        let at = from + i;
        from = at + name.len();
        let before_ok = at == 0 || lower[..at].ends_with(|c: char| c.is_ascii_whitespace());
        let rest = lower[from..].trim_start();
        if !before_ok || !rest.starts_with('=') {
            continue;
        }
        let value_start = tag.len() - rest.len() + 1;
        let value = tag[value_start..].trim_start();
        let mut chars = value.chars();
        return match chars.next() {
            Some(q @ ('\'' | '"')) => {
                let body = &value[1..];
                Some(body.find(q).map_or(body, |end| &body[..end]).to_owned())
            }
            Some(_) => Some(
                value
                    .split(|c: char| c.is_ascii_whitespace() || c == '>')
                    .next()
                    .unwrap_or_default()
                    .to_owned(),
            ),
            None => None,
        };
    }
    None
}

/// The numeric id that ends an MA URL path (`…/bands/Name/123`, `…/albums/B/T/598/`).
pub(crate) fn trailing_id(url: &str) -> Option<i64> {
    let path = url.split(['?', '#']).next().unwrap_or_default();
    path.rsplit('/')
        .find(|seg| !seg.is_empty())
        .and_then(|seg| seg.parse::<i64>().ok())
}

/// The last non-empty path segment of a URL (`…/lists/NO` → `NO`).
pub(crate) fn last_segment(url: &str) -> Option<&str> {
    let path = url.split(['?', '#']).next().unwrap_or_default();
    path.rsplit('/').find(|seg| !seg.is_empty())
}

/// Visible text of an element: text nodes outside `<script>`/`<style>`, squashed.
pub(crate) fn element_text(el: ElementRef<'_>) -> String {
    let mut out = String::new();
    push_text(el, &mut out);
    squash(&out)
}

fn push_text(el: ElementRef<'_>, out: &mut String) {
    for child in el.children() {
        match child.value() {
            Node::Text(t) => out.push_str(t),
            Node::Element(e) => {
                if matches!(e.name(), "script" | "style" | "noscript") {
                    continue;
                }
                if let Some(child_el) = ElementRef::wrap(child) {
                    // Inline elements join their text to the neighbours'; block-level ones
                    // (and `<br>`) separate it.
                    let inline = matches!(
                        e.name(),
                        "a" | "span" | "strong" | "b" | "em" | "i" | "u" | "sup" | "sub" | "small"
                    );
                    if !inline {
                        out.push(' ');
                    }
                    push_text(child_el, out);
                    if !inline {
                        out.push(' ');
                    }
                }
            }
            _ => {}
        }
    }
}

/// `N/A`, `n/a` and empty strings mean "no value" on MA.
pub(crate) fn non_na(s: String) -> Option<String> {
    let t = s.trim();
    if t.is_empty() || t.eq_ignore_ascii_case("n/a") {
        None
    } else {
        Some(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_in_both_quote_styles() {
        let (href, text) = first_link("<a href='https://x/bands/A_B/12'>A &amp; B</a>").unwrap();
        assert_eq!(href, "https://x/bands/A_B/12");
        assert_eq!(text, "A & B");
        let (href, text) = first_link(r#"<A HREF="https://x/lists/NO">Norway</A>"#).unwrap();
        assert_eq!(href, "https://x/lists/NO");
        assert_eq!(text, "Norway");
        assert!(first_link("<abbr title='x'>no</abbr>").is_none());
    }

    #[test]
    fn ids_and_segments() {
        assert_eq!(trailing_id("https://x/albums/B/T/598/"), Some(598));
        assert_eq!(
            trailing_id("https://x/bands/B/3540000001?x=1"),
            Some(3_540_000_001)
        );
        assert_eq!(trailing_id("https://x/bands/B/"), None);
        assert_eq!(last_segment("https://x/lists/NO"), Some("NO"));
    }

    #[test]
    fn stripping() {
        assert_eq!(strip_tags("<span class=\"active\">Active</span>"), "Active");
        assert_eq!(strip_tags("Role&nbsp;(1996-2003)"), "Role (1996-2003)");
        assert_eq!(strip_tags("a < b"), "a");
    }
}
