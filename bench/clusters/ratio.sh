#!/usr/bin/env bash
# `/api/clusters` against `/healthz` over HTTP, for one or more builds of `bandmap` in ONE
# run (issue 27 point 4; docs/performance.md, "The clusters against /healthz"):
# the clusters bench's 150,000 points, each binary on a database of its own (an older
# build may not know the newer migrations), then ROUNDS rounds in which every binary in
# turn answers wrk -t2 -cCONN -dDURs on the six cluster cases (z3, z6, z10, each plain and
# genre=black) and a static file of the z6 answer's size, with a /healthz run before and
# after every case. Each case's figure is its req/s divided by the mean of the /healthz
# runs just around it; the summary gives each case's median over the rounds, and the
# server's own CPU time per answer against /healthz's (ratio_summary.py).
#
# Usage: bench/clusters/ratio.sh [LABEL=BIN ...]   (default: this tree's release build)
#   e.g. bench/clusters/ratio.sh old=/tmp/bandmap-1124 new=target/release/bandmap
# Env: ACCEPT_ENCODING (unset: no Accept-Encoding, the bodies as written; e.g.
#      ACCEPT_ENCODING="gzip, deflate, br, zstd", what Chromium sends, on every request
#      including /healthz: the answers a browser gets),
#      POINTS (150000), DUR (3), CONN (32), ROUNDS (5), PORT (18095), NICE (unset: run as
#      is; e.g. NICE=-20 as root gives wrk and the servers the CPU before other jobs of a
#      shared machine — say so with the figures).
# Needs: PostgreSQL+PostGIS on 127.0.0.1:5432 (user postgres, trust), wrk.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT="$ROOT/bench/out/ratio"
POINTS=${POINTS:-150000}
DUR=${DUR:-3}
CONN=${CONN:-32}
ROUNDS=${ROUNDS:-5}
PORT=${PORT:-18095}
PG="postgres://postgres@127.0.0.1:5432"
BASE="http://127.0.0.1:$PORT"
mkdir -p "$OUT"
cd "$ROOT"
command -v wrk >/dev/null || { echo "wrk missing: apt-get install -y wrk" >&2; exit 1; }
if curl -s -o /dev/null "$BASE/healthz"; then echo "port $PORT is in use: set PORT" >&2; exit 1; fi
run() { if [ -n "${NICE:-}" ]; then nice -n "$NICE" "$@"; else "$@"; fi; }
ASK=()
if [ -n "${ACCEPT_ENCODING:-}" ]; then ASK=(-H "Accept-Encoding: $ACCEPT_ENCODING"); fi

BINS=("$@")
if [ ${#BINS[@]} -eq 0 ]; then
  BANDMAP_ALLOW_MISSING_WEB=1 cargo build --release -p bandmap -q
  BINS=("tree=${CARGO_TARGET_DIR:-$ROOT/target}/release/bandmap")
fi

echo "== machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), NICE=${NICE:-none}, Accept-Encoding: ${ACCEPT_ENCODING:-none}"
if [ ! -e "$OUT/data/points.$POINTS" ]; then
  echo "== data: the clusters bench's generator, $POINTS points"
  cargo bench -q -p bandmap-index --bench clusters -- --points "$POINTS" --write "$OUT/data" >"$OUT/inproc.txt"
  touch "$OUT/data/points.$POINTS"
fi
view() { awk -v z="z$1" '$1 == "viewport" && $2 == z {print $3}' "$OUT/inproc.txt"; }

declare -A URL=([healthz]="$BASE/healthz")
CASES=()
for z in 3 6 10; do
  URL[z$z]="$BASE/api/clusters?zoom=$z&bbox=$(view "$z")"
  URL[z${z}_black]="$BASE/api/clusters?zoom=$z&bbox=$(view "$z")&genre=black"
  CASES+=("z$z" "z${z}_black")
done
# A payload control: a static file of about the z6 answer's size (77 KB) from the same
# server. When it holds the same share of /healthz as z6, the gap is the bytes' (the
# kernel's send and receive path), not the clusters handler's.
URL[static77k]="$BASE/map/preview.png"
CASES+=(static77k)

i=0
for spec in "${BINS[@]}"; do
  label=${spec%%=*}; bin=${spec#*=}
  db="bandmap_bench_ratio_$i"; i=$((i + 1))
  psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
  (cd "$OUT" && DATABASE_URL="$PG/$db" "$bin" migrate >/dev/null)
  psql "$PG/$db" -q <<SQL
\copy bands (ma_id, name, genre, country, country_code, status, formed_year, lat, lon) FROM '$OUT/data/bands.tsv'
\copy band_locations (id, ma_id, step_order, parsed_step, step_label, location_raw, lat, lon, geocode_status) FROM '$OUT/data/locations.tsv'
SELECT setval('band_locations_id_seq', (SELECT max(id) FROM band_locations));
ANALYZE bands; ANALYZE band_locations;
SQL
  echo "$label: $bin on $db"
done

start() { # label bin db
  (cd "$OUT" && exec env DATABASE_URL="$PG/$3" BIND_ADDR="127.0.0.1:$PORT" RUST_LOG=warn \
    GEOCODER_PROVIDER=none PUBLIC_RATE_PER_SEC=1000000 PUBLIC_RATE_BURST=1000000 \
    HTTP_MAX_CONNECTIONS_PER_ADDRESS=64 "$2" serve >"$OUT/serve-$1.log" 2>&1) &
  SERVE=$!
  for _ in $(seq 1 300); do curl -fs "$BASE/readyz" >/dev/null 2>&1 && break; sleep 0.2; done
  for name in "${!URL[@]}"; do curl -fs "${URL[$name]}" -o /dev/null; done
  if [ -n "${NICE:-}" ]; then renice -n "$NICE" -p "$(pgrep -P "$SERVE" bandmap || echo "$SERVE")" >/dev/null; fi
}
stop() { kill "$SERVE" 2>/dev/null || true; wait "$SERVE" 2>/dev/null || true; }
trap stop EXIT

: >"$OUT/http.txt"; : >"$OUT/errors.txt"
tick=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$SERVE/stat"; }
# One wrk run: its req/s and the server's CPU time per answer (user + system, from
# /proc: what the server spends on a request, whatever wrk costs beside it).
measure() { # round label name
  local before after res rps bad reqs
  before=$(cpu)
  res=$(run wrk -t2 -c"$CONN" -d"${DUR}s" "${ASK[@]}" "${URL[$3]}")
  after=$(cpu)
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$res")
  reqs=$(awk '/requests in/ {print $1}' <<<"$res")
  # An error answered fast would pass for speed: say it, and keep it out of the ratios.
  bad=$(awk '/Non-2xx or 3xx responses/ {print $5}' <<<"$res")
  if [ -n "$bad" ]; then
    echo "   $1 $2 $3: $bad answers were not 2xx; the case is left out" | tee -a "$OUT/errors.txt"
    return
  fi
  awk -v r="$1" -v l="$2" -v n="$3" -v rps="$rps" -v q="$reqs" -v c="$((after - before))" -v t="$tick" \
    'BEGIN { printf "%s %s %-9s req/s %10s  serve-us/req %6.2f\n", r, l, n, rps, c / t / q * 1e6 }' |
    tee -a "$OUT/http.txt"
}
for round in $(seq 1 "$ROUNDS"); do
  i=0
  for spec in "${BINS[@]}"; do
    label=${spec%%=*}; bin=${spec#*=}
    start "$label" "$bin" "bandmap_bench_ratio_$i"; i=$((i + 1))
    echo "== round $round, $label (load $(cut -d' ' -f1 /proc/loadavg)); z6 body $(curl -fs "${ASK[@]}" "${URL[z6]}" | wc -c) bytes"
    # /healthz between every two cases: each case is read against the runs just before
    # and just after it, so the machine's speed, which drifts over tens of seconds on a
    # shared host, is nearly the same in the case and its baseline.
    measure "$round" "$label" healthz
    for name in "${CASES[@]}"; do
      measure "$round" "$label" "$name"
      measure "$round" "$label" healthz
    done
    stop
  done
done

python3 "$ROOT/bench/clusters/ratio_summary.py" "$OUT/http.txt" | tee "$OUT/ratios.txt"
