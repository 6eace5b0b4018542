//! docs/configuration.md against the one declaration of every variable (`vars.rs`): each
//! variable has a row, and the row's default column is the declared default.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_config::VARIABLES;

/// The default column of the table row naming `name` (`| `A` / `B` | default | meaning |`).
fn documented_default(doc: &str, name: &str) -> Option<String> {
    doc.lines().find_map(|line| {
        let mut cells = line.split('|').map(str::trim).skip(1);
        let names = cells.next()?;
        let default = cells.next()?;
        names
            .split(" / ")
            .any(|n| n == format!("`{name}`"))
            .then(|| default.to_string())
    })
}

#[test]
fn the_documented_defaults_are_the_declared_ones() {
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/configuration.md"
    ))
    .unwrap();
    for v in VARIABLES {
        let documented = documented_default(&doc, v.name)
            .unwrap_or_else(|| panic!("docs/configuration.md has no row for {}", v.name));
        if v.default.is_empty() {
            assert!(
                !documented.starts_with('`'),
                "{}: documented default {documented}, declared none",
                v.name
            );
        } else {
            assert_eq!(
                documented,
                format!("`{}`", v.default),
                "{}: the documented default differs from the declared one",
                v.name
            );
        }
    }
}
