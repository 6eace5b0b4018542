//! Parenthesis-aware splitting. Separators inside parentheses (`(early/mid)`,
//! `(Syracuse, Sicily)`) never split; unmatched parentheses are neutralised first so that
//! a stray `(` cannot swallow the rest of a location.

/// Replace every unmatched `(` or `)` with a space.
pub(crate) fn balance(s: &str) -> String {
    let mut chars: Vec<char> = s.chars().collect();
    let mut open: Vec<usize> = Vec::new();
    for (i, c) in chars.iter_mut().enumerate() {
        match *c {
            '(' => open.push(i),
            ')' if open.pop().is_none() => *c = ' ',
            _ => {}
        }
    }
    for i in open {
        chars[i] = ' ';
    }
    chars.into_iter().collect()
}

/// Split on separator characters at parenthesis depth 0.
pub(crate) fn split_top(s: &str, is_sep: impl Fn(char) -> bool) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 && is_sep(c) => {
                out.push(&s[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// A top-level parenthesised group: byte span of the whole `( … )` and its inner text.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Group<'a> {
    pub start: usize,
    pub end: usize,
    pub inner: &'a str,
}

/// The top-level groups of `s`, in order.
pub(crate) fn groups(s: &str) -> Vec<Group<'_>> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut open = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' => {
                if depth == 0 {
                    open = i;
                }
                depth += 1;
            }
            ')' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    out.push(Group {
                        start: open,
                        end: i + 1,
                        inner: &s[open + 1..i],
                    });
                }
            }
            _ => {}
        }
    }
    out
}

/// `s` with its top-level groups cut out (each replaced by a space).
pub(crate) fn outside_groups(s: &str, groups: &[Group<'_>]) -> String {
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    for g in groups {
        out.push_str(&s[last..g.start]);
        out.push(' ');
        last = g.end;
    }
    out.push_str(&s[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn balance_drops_strays() {
        assert_eq!(balance("a (b) c)"), "a (b) c ");
        assert_eq!(balance("(a (b)"), " a (b)");
        assert_eq!(balance(")("), "  ");
    }

    #[test]
    fn split_respects_parentheses() {
        assert_eq!(split_top("a (x/y)/b", |c| c == '/'), vec!["a (x/y)", "b"]);
        assert_eq!(split_top("", |c| c == '/'), vec![""]);
    }

    #[test]
    fn groups_are_top_level() {
        let s = "Oslo (a (b)) x (c)";
        let g = groups(s);
        assert_eq!(g.len(), 2);
        assert_eq!(g[0].inner, "a (b)");
        assert_eq!(g[1].inner, "c");
        assert_eq!(outside_groups(s, &g), "Oslo   x  ");
    }
}
