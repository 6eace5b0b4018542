//! Keeps the copy of `web/` embedded in the binary complete and current.
//!
//! `rust-embed` (crates/api/src/web.rs) reads `web/` at compile time in builds without
//! debug assertions (release) and from disk at run time otherwise. Two things could leave
//! a release binary serving a blank page: `web/vendor/` (filled by `scripts/setup-web.sh`)
//! missing when it was compiled, and a later change to `web/` not re-embedded, since cargo
//! does not know the macro read that folder. So this script
//! - tells cargo to re-run (and so re-embed) whenever a file under `web/` the server serves
//!   changes, appears or disappears;
//! - fails the build, naming the missing step, when a file the pages load is absent and
//!   would be embedded; when files are read from disk it only warns (running
//!   `scripts/setup-web.sh` afterwards is enough there).
//!
//! `BANDMAP_ALLOW_MISSING_WEB=1` builds anyway (a binary for API benchmarks only).

use std::path::Path;

/// The folder embedded by `web.rs`, relative to this crate.
const WEB: &str = "../../web";

/// What `web.rs` embeds.
const EMBEDDED: [&str; 5] = ["admin", "map", "lib", "vendor", "favicon.svg"];

/// Files of `web/vendor/` that the pages load (see scripts/setup-web.sh).
const REQUIRED: [&str; 6] = [
    "vendor/leaflet/leaflet-src.esm.js",
    "vendor/leaflet/leaflet.css",
    "vendor/topojson-client/index.js",
    "vendor/polylabel/polylabel.js",
    "vendor/world-atlas/countries-110m.json",
    "vendor/cinzel/cinzel-latin-700-normal.woff2",
];

fn main() {
    let embedded = std::env::var_os("CARGO_CFG_DEBUG_ASSERTIONS").is_none();
    let tracked: Vec<&str> = if embedded {
        EMBEDDED.to_vec()
    } else {
        REQUIRED.to_vec()
    };
    for path in tracked {
        println!("cargo:rerun-if-changed={WEB}/{path}");
    }
    println!("cargo:rerun-if-env-changed=BANDMAP_ALLOW_MISSING_WEB");

    let missing: Vec<&str> = REQUIRED
        .into_iter()
        .filter(|path| !Path::new(WEB).join(path).is_file())
        .collect();
    if missing.is_empty() {
        return;
    }
    let message = format!(
        "web/{} missing: run scripts/setup-web.sh first (it copies the front end's npm \
         packages into web/vendor/), then build again",
        missing.join(", web/")
    );
    if embedded && std::env::var_os("BANDMAP_ALLOW_MISSING_WEB").is_none() {
        eprintln!("error: the map page would be blank: {message}");
        eprintln!("(BANDMAP_ALLOW_MISSING_WEB=1 builds anyway, for an API-only binary)");
        std::process::exit(1);
    }
    println!("cargo:warning={message}");
}
