//! Reading the deployment files of the repository root.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod nginx;

use std::path::PathBuf;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A file of the repository, as text.
pub fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The `NAME=value` lines of an env file (comments and blank lines skipped, one level of
/// quotes removed, as compose reads them).
pub fn env_assignments(text: &str) -> Vec<(String, String)> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (name, value) = l
                .split_once('=')
                .unwrap_or_else(|| panic!("not NAME=value: {l}"));
            let value = value.trim();
            let unquoted = ['\'', '"']
                .iter()
                .find_map(|q| value.strip_prefix(*q).and_then(|v| v.strip_suffix(*q)))
                .unwrap_or(value);
            (name.trim().to_string(), unquoted.to_string())
        })
        .collect()
}

/// `${NAME}`, `${NAME:?message}` and `${NAME:-default}` in `text` replaced by `vars`' values
/// (compose's interpolation); the names met are returned too.
pub fn interpolate(text: &str, vars: &[(String, String)]) -> (String, Vec<String>) {
    let mut out = String::new();
    let mut names = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let end = rest[start..].find('}').expect("unclosed ${") + start;
        let inner = &rest[start + 2..end];
        let name = inner.split([':', '-', '?']).next().unwrap_or_default();
        names.push(name.to_string());
        let value = vars
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str());
        out.push_str(value.unwrap_or_default());
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    (out, names)
}
