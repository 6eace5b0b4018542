#!/usr/bin/env bash
# Install the front end's npm dependencies and copy the browser files the pages
# load into web/vendor/ (git-ignored). No bundler, no build step.
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
cp "$NM/leaflet/dist/"{leaflet.js,leaflet.css,leaflet-src.esm.js} "$VENDOR/leaflet/"
cp "$NM/leaflet/dist/images/"*.png "$VENDOR/leaflet/images/"
cp "$NM/leaflet/LICENSE" "$VENDOR/leaflet/LICENSE"

# topojson-client: its ES module sources (relative imports with .js, load as they are).
need "$NM/topojson-client/src/index.js"
mkdir -p "$VENDOR/topojson-client"
cp "$NM/topojson-client/src/"*.js "$NM/topojson-client/LICENSE" "$VENDOR/topojson-client/"

# polylabel (country label positions) and its one dependency; the bare import
# 'tinyqueue' becomes a relative path (no import map: the CSP refuses inline scripts).
need "$NM/polylabel/polylabel.js"
need "$NM/tinyqueue/index.js"
mkdir -p "$VENDOR/polylabel" "$VENDOR/tinyqueue"
sed "s#from 'tinyqueue'#from '../tinyqueue/index.js'#" "$NM/polylabel/polylabel.js" >"$VENDOR/polylabel/polylabel.js"
grep -q "from '../tinyqueue/index.js'" "$VENDOR/polylabel/polylabel.js" || {
  echo "setup-web: polylabel's tinyqueue import not found (new polylabel version?)" >&2
  exit 1
}
cp "$NM/polylabel/LICENSE" "$VENDOR/polylabel/"
cp "$NM/tinyqueue/index.js" "$NM/tinyqueue/LICENSE" "$VENDOR/tinyqueue/"

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
