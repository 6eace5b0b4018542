#!/usr/bin/env bash
# Install the front end's npm dependencies and copy the browser files the pages
# load into web/vendor/ (git-ignored). The pages' own files are served as written; of the
# libraries, Leaflet is minified and topojson-client and polylabel are each bundled into
# one module by esbuild (npm, pinned), so the phone's first paint waits for fewer and
# smaller files (issue 28, docs/frontend.md "Lighthouse").
#
#   scripts/setup-web.sh            # install deps + vendor files
#   SKIP_NPM=1 scripts/setup-web.sh # only (re)copy vendor files
#
# The `bandmap` binary embeds web/ when it is compiled (crates/api/build.rs tracks the
# folder, so a later `cargo build` picks these files up; a release build without them fails
# and names this script).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WEB="$ROOT/web"
NM="$WEB/node_modules"
VENDOR="$WEB/vendor"

if ! command -v npm >/dev/null 2>&1; then
  echo "setup-web: npm not found (install Node.js >= 20)" >&2
  exit 1
fi

if [ "${SKIP_NPM:-0}" != "1" ]; then
  if [ -f "$WEB/package-lock.json" ]; then
    npm ci --prefix "$WEB" --no-audit --no-fund
  else
    npm install --prefix "$WEB" --no-audit --no-fund
  fi
fi

need() {
  if [ ! -f "$1" ]; then
    echo "setup-web: $1 missing (npm install failed?)" >&2
    exit 1
  fi
}

# Leaflet: the ES module build, its stylesheet and images.
need "$NM/leaflet/dist/leaflet-src.esm.js"
rm -rf "$VENDOR"
mkdir -p "$VENDOR/leaflet/images"
need "$NM/.bin/esbuild"
esbuild() { "$NM/.bin/esbuild" --log-level=warning --legal-comments=inline "$@"; }
cp "$NM/leaflet/dist/"{leaflet.js,leaflet.css} "$VENDOR/leaflet/"
# Same file name (the pages import it), minified: 424 KB → 148 KB (112 → 43 KB gzip).
esbuild "$NM/leaflet/dist/leaflet-src.esm.js" --minify --format=esm \
  --outfile="$VENDOR/leaflet/leaflet-src.esm.js"
cp "$NM/leaflet/dist/images/"*.png "$VENDOR/leaflet/images/"
cp "$NM/leaflet/LICENSE" "$VENDOR/leaflet/LICENSE"

# topojson-client: its ES module sources bundled into one module (14 files imported one
# after the other otherwise).
need "$NM/topojson-client/src/index.js"
mkdir -p "$VENDOR/topojson-client"
esbuild "$NM/topojson-client/src/index.js" --bundle --minify --format=esm \
  --outfile="$VENDOR/topojson-client/index.js"
cp "$NM/topojson-client/LICENSE" "$VENDOR/topojson-client/"

# polylabel (country label positions) bundled with its one dependency, tinyqueue, into
# one module (no bare import left: the CSP refuses the inline import map it would need).
need "$NM/polylabel/polylabel.js"
need "$NM/tinyqueue/index.js"
mkdir -p "$VENDOR/polylabel" "$VENDOR/tinyqueue"
esbuild "$NM/polylabel/polylabel.js" --bundle --minify --format=esm \
  --outfile="$VENDOR/polylabel/polylabel.js"
grep -q "from *['\"]" "$VENDOR/polylabel/polylabel.js" && {
  echo "setup-web: polylabel's bundle still imports a module (new polylabel version?)" >&2
  exit 1
}
cp "$NM/polylabel/LICENSE" "$VENDOR/polylabel/"
cp "$NM/tinyqueue/LICENSE" "$VENDOR/tinyqueue/"

# Natural Earth country outlines (public domain), 1:110m: 38 KB gzip (1:50m is 230 KB,
# beyond the page weight budget of docs/frontend.md).
need "$NM/world-atlas/countries-110m.json"
mkdir -p "$VENDOR/world-atlas"
cp "$NM/world-atlas/countries-110m.json" "$NM/world-atlas/LICENSE" "$VENDOR/world-atlas/"

# Cinzel (SIL OFL), the display typeface for names: latin 700 only.
need "$NM/@fontsource/cinzel/files/cinzel-latin-700-normal.woff2"
mkdir -p "$VENDOR/cinzel"
cp "$NM/@fontsource/cinzel/files/cinzel-latin-700-normal.woff2" "$VENDOR/cinzel/"
cp "$NM/@fontsource/cinzel/LICENSE" "$VENDOR/cinzel/" 2>/dev/null || true

# uPlot (MIT): the admin console's charts (ES module build and its stylesheet).
need "$NM/uplot/dist/uPlot.esm.js"
mkdir -p "$VENDOR/uplot"
cp "$NM/uplot/dist/uPlot.esm.js" "$NM/uplot/dist/uPlot.min.css" "$NM/uplot/LICENSE" "$VENDOR/uplot/"

echo "setup-web: vendor files in $VENDOR"
find "$VENDOR" -type f | sed "s#^$WEB/##" | sort
