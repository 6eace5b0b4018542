//! The workspace's own source files, for the tests that read the tree (`lifecycle_literals`,
//! `sql_writes`).

use std::path::{Path, PathBuf};

/// The workspace root (two levels above this crate).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// Files under `crates/<crate>/src` whose extension is one of `extensions`, for every crate
/// not named in `exempt`, sorted.
pub fn src_files(root: &Path, exempt: &[&str], extensions: &[&str]) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let Ok(crates) = std::fs::read_dir(root.join("crates")) else {
        return files;
    };
    for krate in crates.flatten() {
        let name = krate.file_name().to_string_lossy().into_owned();
        if !exempt.contains(&name.as_str()) {
            walk(&krate.path().join("src"), extensions, &mut files);
        }
    }
    files.sort();
    files
}

fn walk(dir: &Path, extensions: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, extensions, out);
        } else if path
            .extension()
            .is_some_and(|e| extensions.iter().any(|x| e == *x))
        {
            out.push(path);
        }
    }
}
