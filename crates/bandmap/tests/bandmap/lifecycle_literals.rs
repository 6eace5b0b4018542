//! Issue 20's rule, checked on the source tree: outside `crates/db` (the one home of the
//! location, run and trigger lifecycles) and test code, no Rust file spells a geocode
//! status, a job type, a trigger status or a run status as a string literal — neither as a
//! whole literal (`"llm_needed"`) nor quoted inside SQL text (`'done'`). Everything else
//! names the typed enums of `bandmap_db`.
//!
//! The scan reads the string literals of every `src/` file (comments, char literals and
//! `#[cfg(test)]` items are skipped). A literal followed by `:` is a JSON object key
//! (`json!({"error": …})`), and a literal inside `[…]` or `.get(…)` reads a JSON field:
//! neither names a state, so both are allowed.

use crate::source_tree::{src_files, workspace_root};
use std::path::{Path, PathBuf};

/// Every value of the CHECK constraints of `band_locations.geocode_status`,
/// `crawl_run.type`, `crawl_run.status` and `job_triggers.status`
/// (migrations 003 and 005).
const STATE_VALUES: &[&str] = &[
    "pending",
    "processing",
    "done",
    "country_only",
    "llm_needed",
    "manual",
    "error",
    "incremental",
    "enrich",
    "full_crawl",
    "geocoder_enqueue",
    "claimed",
    "cancelled",
    "running",
    "success",
    "interrupted",
];

/// Crates whose `src/` may spell states: the lifecycle's home and the test-only crates.
const EXEMPT_CRATES: &[&str] = &["db", "fakes", "test-support"];

#[derive(Debug, PartialEq)]
struct Literal {
    line: usize,
    text: String,
    /// The literal is an object key or a JSON field read (see the module docs).
    json_field: bool,
}

#[derive(Debug)]
struct Finding {
    file: PathBuf,
    line: usize,
    literal: String,
}

/// The `src/` Rust files of every non-exempt crate.
fn checked_files(root: &Path) -> Vec<PathBuf> {
    src_files(root, EXEMPT_CRATES, &["rs"])
}

/// A small Rust lexer: enough to find string literals and to skip comments, char
/// literals, lifetimes and `#[cfg(test)]` items.
struct Lexer<'a> {
    src: &'a [u8],
    pos: usize,
    line: usize,
}

impl<'a> Lexer<'a> {
    fn new(src: &'a str) -> Self {
        Self {
            src: src.as_bytes(),
            pos: 0,
            line: 1,
        }
    }

    fn peek(&self, ahead: usize) -> Option<u8> {
        self.src.get(self.pos + ahead).copied()
    }

    fn bump(&mut self) {
        if self.peek(0) == Some(b'\n') {
            self.line += 1;
        }
        self.pos += 1;
    }

    fn starts_with(&self, s: &str) -> bool {
        self.src[self.pos..].starts_with(s.as_bytes())
    }

    fn skip_line_comment(&mut self) {
        while let Some(c) = self.peek(0) {
            if c == b'\n' {
                break;
            }
            self.bump();
        }
    }

    fn skip_block_comment(&mut self) {
        let mut depth = 0usize;
        while self.peek(0).is_some() {
            if self.starts_with("/*") {
                depth += 1;
                self.bump();
                self.bump();
            } else if self.starts_with("*/") {
                depth = depth.saturating_sub(1);
                self.bump();
                self.bump();
                if depth == 0 {
                    return;
                }
            } else {
                self.bump();
            }
        }
    }

    /// A normal string literal, the opening quote at `pos`.
    fn string(&mut self) -> String {
        self.bump();
        let mut out = Vec::new();
        while let Some(c) = self.peek(0) {
            match c {
                b'\\' => {
                    self.bump();
                    if let Some(e) = self.peek(0) {
                        out.push(e);
                    }
                    self.bump();
                }
                b'"' => {
                    self.bump();
                    break;
                }
                _ => {
                    out.push(c);
                    self.bump();
                }
            }
        }
        String::from_utf8_lossy(&out).into_owned()
    }

    /// A raw string literal `r#"…"#`, `pos` at the `r`.
    fn raw_string(&mut self) -> String {
        self.bump();
        let mut hashes = 0;
        while self.peek(0) == Some(b'#') {
            hashes += 1;
            self.bump();
        }
        self.bump(); // the opening quote
        let close: String = std::iter::once('"')
            .chain(std::iter::repeat_n('#', hashes))
            .collect();
        let start = self.pos;
        while self.peek(0).is_some() && !self.starts_with(&close) {
            self.bump();
        }
        let text = String::from_utf8_lossy(&self.src[start..self.pos]).into_owned();
        for _ in 0..close.len() {
            self.bump();
        }
        text
    }

    /// `r"` or `r#…#"` at `pos` (not a raw identifier `r#name`).
    fn raw_string_ahead(&self) -> bool {
        let hashes = self.src[self.pos + 1..]
            .iter()
            .take_while(|&&c| c == b'#')
            .count();
        self.peek(1 + hashes) == Some(b'"')
    }

    /// A char literal or a lifetime, `pos` at the quote.
    fn quote(&mut self) {
        self.bump();
        if self.peek(0) == Some(b'\\') {
            self.bump();
            self.bump();
            while self.peek(0).is_some_and(|c| c != b'\'') {
                self.bump();
            }
            self.bump();
        } else if self.peek(1) == Some(b'\'') {
            self.bump();
            self.bump();
        }
        // Otherwise a lifetime: its name is read as ordinary text.
    }

    fn next_non_space(&self, from: usize) -> Option<u8> {
        self.src[from..]
            .iter()
            .copied()
            .find(|c| !c.is_ascii_whitespace())
    }

    fn prev_non_space(&self, before: usize) -> Option<(usize, u8)> {
        self.src[..before]
            .iter()
            .copied()
            .enumerate()
            .rev()
            .find(|(_, c)| !c.is_ascii_whitespace())
    }

    /// A literal followed by `:` (not `::`) is an object key; one after `[` or `get(` is a
    /// field read.
    fn is_json_field(&self, start: usize) -> bool {
        let after = self.next_non_space(self.pos);
        let key = after == Some(b':')
            && self
                .src
                .get(self.pos..)
                .and_then(|rest| {
                    let rest = std::str::from_utf8(rest).ok()?;
                    Some(!rest.trim_start().starts_with("::"))
                })
                .unwrap_or(false);
        let read = match self.prev_non_space(start) {
            Some((_, b'[')) => true,
            Some((i, b'(')) => self.src[..i].ends_with(b"get"),
            _ => false,
        };
        key || read
    }

    /// Skips the item after `#[cfg(test)]`: up to its closing `}` or its `;`.
    fn skip_item(&mut self) {
        let mut depth = 0usize;
        while let Some(c) = self.peek(0) {
            match c {
                b'"' => {
                    self.string();
                }
                b'r' if self.raw_string_ahead() => {
                    self.raw_string();
                }
                b'\'' => self.quote(),
                b'/' if self.peek(1) == Some(b'/') => self.skip_line_comment(),
                b'/' if self.peek(1) == Some(b'*') => self.skip_block_comment(),
                b'{' => {
                    depth += 1;
                    self.bump();
                }
                b'}' => {
                    self.bump();
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return;
                    }
                }
                b';' if depth == 0 => {
                    self.bump();
                    return;
                }
                _ => self.bump(),
            }
        }
    }

    fn literals(mut self) -> Vec<Literal> {
        let mut out = Vec::new();
        while let Some(c) = self.peek(0) {
            let ident_before = self.pos > 0 && self.src[self.pos - 1].is_ascii_alphanumeric();
            match c {
                b'/' if self.peek(1) == Some(b'/') => self.skip_line_comment(),
                b'/' if self.peek(1) == Some(b'*') => self.skip_block_comment(),
                b'#' if self.starts_with("#[cfg(test)]") => {
                    for _ in 0.."#[cfg(test)]".len() {
                        self.bump();
                    }
                    self.skip_item();
                }
                b'"' => {
                    let (start, line) = (self.pos, self.line);
                    let text = self.string();
                    let json_field = self.is_json_field(start);
                    out.push(Literal {
                        line,
                        text,
                        json_field,
                    });
                }
                b'r' if !ident_before && self.raw_string_ahead() => {
                    let (start, line) = (self.pos, self.line);
                    let text = self.raw_string();
                    let json_field = self.is_json_field(start);
                    out.push(Literal {
                        line,
                        text,
                        json_field,
                    });
                }
                b'\'' => self.quote(),
                _ => self.bump(),
            }
        }
        out
    }
}

/// The state a literal spells, whole or quoted as SQL text, if any.
fn spelled_state(literal: &Literal) -> Option<&'static str> {
    let whole = STATE_VALUES
        .iter()
        .find(|v| **v == literal.text && !literal.json_field);
    let quoted = STATE_VALUES
        .iter()
        .find(|v| literal.text.contains(&format!("'{v}'")));
    whole.or(quoted).copied()
}

fn findings(root: &Path) -> Vec<Finding> {
    let mut out = Vec::new();
    for file in checked_files(root) {
        let Ok(src) = std::fs::read_to_string(&file) else {
            continue;
        };
        for literal in Lexer::new(&src).literals() {
            if spelled_state(&literal).is_some() {
                out.push(Finding {
                    file: file.strip_prefix(root).unwrap_or(&file).to_path_buf(),
                    line: literal.line,
                    literal: literal.text,
                });
            }
        }
    }
    out
}

#[test]
fn no_lifecycle_state_is_spelled_outside_the_db_crate() {
    let root = workspace_root();
    assert!(
        checked_files(&root).len() > 50,
        "the scan found too few source files under {}",
        root.display()
    );
    let found = findings(&root);
    let report: Vec<String> = found
        .iter()
        .map(|f| format!("{}:{}: {:?}", f.file.display(), f.line, f.literal))
        .collect();
    assert!(
        found.is_empty(),
        "lifecycle states spelled as string literals outside crates/db (use the typed enums \
         of bandmap_db):\n{}",
        report.join("\n")
    );
}

fn lex(src: &str) -> Vec<Literal> {
    Lexer::new(src).literals()
}

#[test]
fn the_scan_sees_whole_and_sql_quoted_states() {
    let flagged = |src: &str| lex(src).iter().any(|l| spelled_state(l).is_some());
    assert!(flagged(r#"let s = "llm_needed";"#));
    assert!(flagged(r#"sqlx::query("UPDATE t SET s = 'done'")"#));
    assert!(flagged("let q = r#\"WHERE status = 'running'\"#;"));
    assert!(flagged("let q = r\"x 'full_crawl'\";"));
}

#[test]
fn the_scan_ignores_keys_reads_comments_and_test_items() {
    let flagged = |src: &str| lex(src).iter().any(|l| spelled_state(l).is_some());
    assert!(!flagged(r#"json!({"error": {"code": 1}})"#));
    assert!(!flagged(r#"let e = v["error"]; let d = v.get("done");"#));
    assert!(!flagged("// \"pending\" in a comment\n/* 'done' */"));
    assert!(!flagged(
        "#[cfg(test)]\nmod tests { fn f() { let s = \"done\"; let b = '}'; } }"
    ));
    assert!(!flagged(r#"let s = "pending rows"; let c = 'x';"#));
    assert!(!flagged("fn f<'a>(x: &'a str) -> &'a str { x }"));
}

#[test]
fn the_scan_keeps_going_after_test_items() {
    let src = "#[cfg(test)]\nmod tests { fn f() {} }\nfn g() { let s = \"manual\"; }";
    let found = lex(src);
    assert_eq!(
        found.iter().filter_map(spelled_state).collect::<Vec<_>>(),
        vec!["manual"]
    );
    assert_eq!(
        found.iter().find(|l| l.text == "manual").map(|l| l.line),
        Some(3)
    );
}
