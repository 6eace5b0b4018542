//! Issue 26 ("one copy"): the two front ends import one set of DOM and fetch helpers from
//! `web/lib/`. Every module either page imports must be served by the binary, as
//! JavaScript (module scripts refuse other types), under the same policy and caching as
//! the pages' own files.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_test_support::spawn_app;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The front ends' folders under `web/`, as served (`/admin/…`, `/map/…`, `/lib/…`).
const FRONT_ENDS: [&str; 3] = ["admin", "map", "lib"];

/// Every `.js` file under `dir`, with its URL path.
fn scripts(web: &Path, dir: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut dirs: Vec<PathBuf> = vec![web.join(dir)];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "js") {
                let rel = path
                    .strip_prefix(web)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((format!("/{rel}"), std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    out
}

/// The module specifiers of a script's static imports (`import … from '…'`, `import '…'`).
fn imports(code: &str) -> Vec<&str> {
    code.lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with("import ") || l.starts_with("} from "))
        .filter_map(|l| {
            let quoted = l
                .rsplit_once(" from ")
                .map_or(&l["import ".len()..], |(_, s)| s);
            let quoted = quoted.trim().trim_end_matches(';');
            quoted.strip_prefix('\'').and_then(|s| s.strip_suffix('\''))
        })
        .collect()
}

/// `spec` resolved against the URL path of the module importing it.
fn resolve(from: &str, spec: &str) -> String {
    if spec.starts_with('/') {
        return spec.to_string();
    }
    let mut parts: Vec<&str> = from.split('/').collect();
    parts.pop();
    for seg in spec.split('/') {
        match seg {
            "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    parts.join("/")
}

/// Every module the front ends import, as URL paths.
fn imported_modules() -> BTreeSet<String> {
    let web = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web");
    let mut out = BTreeSet::new();
    for dir in FRONT_ENDS {
        for (url, code) in scripts(&web, dir) {
            for spec in imports(&code) {
                out.insert(resolve(&url, spec));
            }
        }
    }
    out
}

#[test]
fn the_import_reader_finds_what_it_looks_for() {
    let code = "import { a } from '/lib/dom.js';\nimport * as L from '/vendor/x.js';\n\
                import {\n  b,\n} from '../api.js';\nimport './side.js';\nconst s = 'import x';";
    assert_eq!(
        imports(code),
        ["/lib/dom.js", "/vendor/x.js", "../api.js", "./side.js"]
    );
    assert_eq!(
        resolve("/admin/views/bands.js", "../api.js"),
        "/admin/api.js"
    );
    assert_eq!(resolve("/map/card.js", "./words.js"), "/map/words.js");
}

#[tokio::test]
async fn every_module_the_front_ends_import_is_served_as_javascript() {
    let modules = imported_modules();
    for shared in ["/lib/dom.js", "/lib/http.js"] {
        assert!(
            modules.contains(shared),
            "{shared} is imported: {modules:?}"
        );
    }
    let app = spawn_app().await;
    for path in &modules {
        let r = app.client.get(app.url(path)).send().await.unwrap();
        assert_eq!(r.status(), 200, "{path}");
        let header = |name: &str| {
            r.headers()
                .get(name)
                .map(|v| v.to_str().unwrap().to_string())
                .unwrap_or_default()
        };
        assert!(
            header("content-type").starts_with("text/javascript"),
            "{path}: {}",
            header("content-type")
        );
        assert!(
            header("content-security-policy").contains("script-src 'self'"),
            "{path}"
        );
        let cache = if path.starts_with("/vendor/") {
            "public, max-age=86400"
        } else {
            "no-cache"
        };
        assert_eq!(header("cache-control"), cache, "{path}");
    }
}

/// `/lib/` answers with the files of `web/lib/` only. (A `%2e%2e` segment is no test here:
/// the client resolves it as `..` before sending, `foundation.rs` covers traversal.)
#[tokio::test]
async fn the_shared_folder_serves_only_its_own_files() {
    let app = spawn_app().await;
    for path in [
        "/lib/map/index.html",
        "/lib/admin/app.js",
        "/lib/nope.js",
        "/lib/",
    ] {
        let r = app.client.get(app.url(path)).send().await.unwrap();
        assert_ne!(r.status(), 200, "{path}");
    }
}
