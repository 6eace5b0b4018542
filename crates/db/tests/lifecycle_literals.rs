//! Issue 20: the run and trigger vocabularies live in `bandmap_db::runs` only. Outside
//! `crates/db` and test code (tests, benches, fakes, test support, `#[cfg(test)]` modules),
//! no Rust file spells a job type, a run status or a trigger status as a string literal
//! (Rust `"…"` or SQL `'…'`). `pending`, `done` and `error` are left out of the check: the
//! same words are geocode statuses and JSON keys.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

/// The words checked: job types, and the run and trigger statuses that name nothing else.
const WORDS: [&str; 9] = [
    "incremental",
    "enrich",
    "full_crawl",
    "geocoder_enqueue",
    "running",
    "success",
    "interrupted",
    "cancelled",
    "claimed",
];

/// Crates whose whole source may spell them.
const EXEMPT_CRATES: [&str; 3] = ["db", "fakes", "test-support"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            if !matches!(name, "tests" | "benches" | "target") {
                rust_files(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

/// The offending lines of one file's non-test code.
fn offenders(text: &str) -> Vec<String> {
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    code.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .filter(|l| {
            WORDS
                .iter()
                .any(|w| l.contains(&format!("\"{w}\"")) || l.contains(&format!("'{w}'")))
        })
        .map(|l| l.trim().to_owned())
        .collect()
}

#[test]
fn no_run_or_trigger_literal_outside_the_db_crate() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    for entry in std::fs::read_dir(&crates).unwrap() {
        let dir = entry.unwrap().path();
        let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if EXEMPT_CRATES.contains(&name) {
            continue;
        }
        let mut files = Vec::new();
        rust_files(&dir, &mut files);
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            for line in offenders(&text) {
                found.push(format!("{}: {line}", file.display()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "spell these through bandmap_db::runs:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_sees_rust_and_sql_literals() {
    assert_eq!(offenders("let t = \"full_crawl\";").len(), 1);
    assert_eq!(offenders("WHERE status = 'running'").len(), 1);
    assert!(offenders("// \"running\" in a comment").is_empty());
    assert!(offenders("#[cfg(test)]\nmod t { const S: &str = \"success\"; }").is_empty());
}
