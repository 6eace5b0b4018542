//! Issue 26's rule, checked on the source tree: `crates/db` is the one writer of every
//! table, so no other crate's `src/` — its test modules included — holds an `INSERT INTO`,
//! an `UPDATE … SET` or a `DELETE FROM`. (Integration tests under `tests/` may arrange
//! their data in SQL; `src/` may not.)
//!
//! The scan reads every `.rs` and `.sql` file under `crates/*/src` but `crates/db`, splits
//! it into words (letters, digits, `_`) and looks for the uppercase keyword sequences,
//! so a statement written over several lines is found too.

use crate::source_tree::{src_files, workspace_root};
use std::path::{Path, PathBuf};

/// The `src/` files of every crate but `db`.
fn checked_files(root: &Path) -> Vec<PathBuf> {
    src_files(root, &["db"], &["rs", "sql"])
}

/// The write statements `text` holds, as (line, statement head).
fn writes(text: &str) -> Vec<(usize, String)> {
    let mut words: Vec<(usize, &str)> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let parts = line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
        words.extend(parts.filter(|w| !w.is_empty()).map(|w| (n + 1, w)));
    }
    let mut found = Vec::new();
    for (i, &(line, w)) in words.iter().enumerate() {
        let next = |k: usize| words.get(i + k).map(|&(_, w)| w);
        let head = match (w, next(1), next(2)) {
            ("INSERT", Some("INTO"), _) => Some("INSERT INTO".to_string()),
            ("DELETE", Some("FROM"), _) => Some("DELETE FROM".to_string()),
            ("UPDATE", Some(table), Some("SET")) => Some(format!("UPDATE {table} SET")),
            _ => None,
        };
        if let Some(head) = head {
            found.push((line, head));
        }
    }
    found
}

#[test]
fn no_crate_but_db_writes_a_table() {
    let root = workspace_root();
    let files = checked_files(&root);
    assert!(
        files.len() > 50,
        "the scan found only {} source files under {}",
        files.len(),
        root.display()
    );
    let mut findings = Vec::new();
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        for (line, head) in writes(&text) {
            let shown = file.strip_prefix(&root).unwrap_or(file).display();
            findings.push(format!("{shown}:{line}: {head}"));
        }
    }
    assert!(
        findings.is_empty(),
        "SQL writes outside crates/db (write through a bandmap_db function):\n{}",
        findings.join("\n")
    );
}

#[test]
fn the_scan_finds_writes_over_several_lines_and_ignores_prose() {
    let src = "let q = \"INSERT\n  INTO bands (ma_id) VALUES ($1)\";\n\
               sqlx::query(\"UPDATE \\\"bands\\\" SET name = $1\");\n\
               // DELETE FROM old_rows WHERE true\n\
               // update the bands set by hand; delete from memory\n";
    let found: Vec<String> = writes(src).into_iter().map(|(_, h)| h).collect();
    assert_eq!(
        found,
        ["INSERT INTO", "UPDATE bands SET", "DELETE FROM"],
        "{found:?}"
    );
    assert_eq!(writes("SELECT * FROM bands WHERE updated_at > $1"), []);
}
