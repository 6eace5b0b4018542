#!/usr/bin/env bash
# Install the front end's npm dependencies and copy the browser files the pages
# load into web/vendor/ (git-ignored). No bundler, no build step.
#
#   scripts/setup-web.sh            # install deps + vendor files
#   SKIP_NPM=1 scripts/setup-web.sh # only (re)copy vendor files
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WEB="$ROOT/web"

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

SRC="$WEB/node_modules/leaflet/dist"
DST="$WEB/vendor/leaflet"
if [ ! -f "$SRC/leaflet.js" ]; then
  echo "setup-web: $SRC/leaflet.js missing (npm install failed?)" >&2
  exit 1
fi
rm -rf "$DST"
mkdir -p "$DST/images"
cp "$SRC/leaflet.js" "$SRC/leaflet.css" "$SRC/leaflet-src.esm.js" "$DST/"
cp "$SRC/images/"*.png "$DST/images/"
cp "$WEB/node_modules/leaflet/LICENSE" "$DST/LICENSE" 2>/dev/null || true

echo "setup-web: vendor files in $DST"
ls "$DST"
