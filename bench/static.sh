#!/usr/bin/env bash
# The front end's files as a browser asks for them (Accept-Encoding: gzip, deflate, br,
# zstd), for one or more builds of `bandmap` in ONE run, alternated ROUNDS times: req/s of
# wrk -t2 -c32 -dDURs on /healthz, the largest vendored script (Leaflet, 149 KB), one of
# the map's own modules, the map page and an embed, with the bytes each answer carries
# (docs/performance.md "The front end's files" and "The map page"). Needs the clusters bench's database of bench/clusters/ratio.sh
# (any database of this schema serves: the files do not touch it) and wrk.
#
# Usage: bench/static.sh [LABEL=BIN ...]   (default: this tree's release build)
# Env: DB (bandmap_bench_ratio_0), DUR (4), ROUNDS (2), PORT (18096), PATHS (the paths
#      above, space-separated).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DB=${DB:-bandmap_bench_ratio_0}
DUR=${DUR:-4}
ROUNDS=${ROUNDS:-2}
PORT=${PORT:-18096}
PATHS=${PATHS:-/healthz /vendor/leaflet/leaflet-src.esm.js /map/clusters.js / /embed?zoom=5&lang=en}
read -r -a PATH_LIST <<<"$PATHS"  # split on spaces, no globbing of the `?`
BASE="http://127.0.0.1:$PORT"
ASK="Accept-Encoding: gzip, deflate, br, zstd"
command -v wrk >/dev/null || { echo "wrk missing: apt-get install -y wrk" >&2; exit 1; }
if curl -s -o /dev/null "$BASE/healthz"; then echo "port $PORT is in use: set PORT" >&2; exit 1; fi
BINS=("$@")
if [ ${#BINS[@]} -eq 0 ]; then
  cargo build --release -p bandmap -q
  BINS=("tree=${CARGO_TARGET_DIR:-$ROOT/target}/release/bandmap")
fi

SERVE=
stop() { if [ -n "$SERVE" ]; then kill "$SERVE" 2>/dev/null || true; wait "$SERVE" 2>/dev/null || true; fi; SERVE=; }
trap stop EXIT
echo "== machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq 1 "$ROUNDS"); do
  for spec in "${BINS[@]}"; do
    label=${spec%%=*}; bin=${spec#*=}
    DATABASE_URL="postgres://postgres@127.0.0.1:5432/$DB" BIND_ADDR="127.0.0.1:$PORT" RUST_LOG=warn \
      GEOCODER_PROVIDER=none PUBLIC_RATE_PER_SEC=1000000 PUBLIC_RATE_BURST=1000000 \
      HTTP_MAX_CONNECTIONS_PER_ADDRESS=64 "$bin" serve >/dev/null 2>&1 &
    SERVE=$!
    for _ in $(seq 1 100); do curl -fs "$BASE/readyz" >/dev/null 2>&1 && break; sleep 0.2; done
    for path in "${PATH_LIST[@]}"; do
      rps=$(wrk -t2 -c32 -d"${DUR}s" -H "$ASK" "$BASE$path" | awk '/Requests\/sec/ {print $2}')
      bytes=$(curl -fs -H "$ASK" "$BASE$path" | wc -c)
      printf "%s %-7s %-36s req/s %10s  (%s bytes)\n" "$round" "$label" "$path" "$rps" "$bytes"
    done
    stop
  done
done
