#!/usr/bin/env bash
# Flows benchmark (issue 27; docs/performance.md, "Flows"), in one run so the ratios compare
# like with like on a shared machine:
#   (c) in process: `cargo bench -p bandmap-index --bench clusters -- --bands 150000` (the
#       clusters' timings and the flows' on the same snapshot: 150,000 synthetic bands,
#       36 % with two or more located steps);
#   (a) HTTP with wrk against `bandmap serve` (release) on the same data: /healthz, then
#       /api/clusters and /api/flows at z3 and z6 (and clusters z10) on the same viewports,
#       alternated in ROUNDS rounds, /healthz again; each ratio against the /healthz run of
#       its round;
#   serve RSS after the flows were asked.
# Needs: PostgreSQL+PostGIS on 127.0.0.1:5432 (user postgres, trust), wrk.
# Env: BANDS (150000), DUR (wrk seconds, 5), CONN (32), ROUNDS (2), PORT (18090),
#      BENCH_DB (bandmap_bench_flows).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT="$ROOT/bench/out/flows"
BANDS=${BANDS:-150000}
DUR=${DUR:-5}
CONN=${CONN:-32}
ROUNDS=${ROUNDS:-2}
PORT=${PORT:-18090}
DB=${BENCH_DB:-bandmap_bench_flows}
PG="postgres://postgres@127.0.0.1:5432"
BASE="http://127.0.0.1:$PORT"
mkdir -p "$OUT"
cd "$ROOT"
command -v wrk >/dev/null || { echo "wrk missing: apt-get install -y wrk" >&2; exit 1; }
if curl -s -o /dev/null "$BASE/healthz"; then echo "port $PORT is in use: set PORT" >&2; exit 1; fi

echo "== machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== build (release)"
BANDMAP_ALLOW_MISSING_WEB=1 cargo build --release -p bandmap -q
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/bandmap"

echo "== (c) in process, $BANDS bands"
cargo bench -q -p bandmap-index --bench clusters -- --bands "$BANDS" --write "$OUT/data" | tee "$OUT/inproc.txt"
view() { awk -v z="z$1" '$1 == "viewport" && $2 == z {print $3}' "$OUT/inproc.txt"; }

echo "== database $DB"
psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" >/dev/null
export DATABASE_URL="$PG/$DB"
(cd "$OUT" && "$BIN" migrate >/dev/null)
psql "$DATABASE_URL" -q <<SQL
\copy bands (ma_id, name, genre, country, country_code, status, formed_year, lat, lon) FROM '$OUT/data/bands.tsv'
\copy band_locations (id, ma_id, step_order, parsed_step, step_label, location_raw, lat, lon, geocode_status) FROM '$OUT/data/locations.tsv'
SELECT setval('band_locations_id_seq', (SELECT max(id) FROM band_locations));
ANALYZE bands; ANALYZE band_locations;
SQL
echo "bands: $(psql "$DATABASE_URL" -tAc 'SELECT count(*) FROM bands'), with 2+ steps: $(psql "$DATABASE_URL" -tAc 'SELECT count(*) FROM (SELECT ma_id FROM band_locations GROUP BY ma_id HAVING count(*) >= 2) x'), points: $(psql "$DATABASE_URL" -tAc 'SELECT count(*) FROM band_locations')"

# The flows are under the public rate limit (one wrk client would get 429s): lifted here.
echo "== start bandmap serve on $BASE"
(cd "$OUT" && BIND_ADDR="127.0.0.1:$PORT" RUST_LOG=warn GEOCODER_PROVIDER=none \
  PUBLIC_RATE_PER_SEC=1000000 PUBLIC_RATE_BURST=1000000 exec "$BIN" serve >"$OUT/serve.log" 2>&1) &
SERVE=$!
trap 'kill $SERVE 2>/dev/null || true' EXIT
for _ in $(seq 1 300); do curl -fs "$BASE/readyz" >/dev/null 2>&1 && break; sleep 0.2; done
curl -fs "$BASE/api/clusters?zoom=3" -o /dev/null
SPID=$(pgrep -P "$SERVE" bandmap || echo "$SERVE")
rss() { awk '/VmRSS/ {printf "%.1f MB", $2/1024}' "/proc/$SPID/status"; }
hwm() { awk '/VmHWM/ {printf "%.1f MB", $2/1024}' "/proc/$SPID/status"; }
echo "serve RSS after the first load: $(rss)"

declare -A URL=(
  [healthz]="$BASE/healthz"
  [clusters_z3]="$BASE/api/clusters?zoom=3&bbox=$(view 3)"
  [flows_z3]="$BASE/api/flows?zoom=3&bbox=$(view 3)"
  [clusters_z6]="$BASE/api/clusters?zoom=6&bbox=$(view 6)"
  [flows_z6]="$BASE/api/flows?zoom=6&bbox=$(view 6)"
  [clusters_z10]="$BASE/api/clusters?zoom=10&bbox=$(view 10)"
)
ORDER=(healthz clusters_z3 flows_z3 clusters_z6 flows_z6 clusters_z10 healthz)
for name in "${!URL[@]}"; do curl -fs "${URL[$name]}" -o /dev/null; done
echo "flows z3 body: $(curl -fs "${URL[flows_z3]}" | wc -c) bytes, z6: $(curl -fs "${URL[flows_z6]}" | wc -c) bytes"

: >"$OUT/http.txt"
for round in $(seq 1 "$ROUNDS"); do
  echo "== (a) HTTP round $round: wrk -t2 -c$CONN -d${DUR}s --latency (server and wrk share the machine; load $(cut -d' ' -f1 /proc/loadavg))"
  for name in "${ORDER[@]}"; do
    res=$(wrk --latency -t2 -c"$CONN" -d"${DUR}s" "${URL[$name]}")
    rps=$(awk '/Requests\/sec/ {print $2}' <<<"$res")
    p99=$(awk '$1 == "99%" {print $2}' <<<"$res")
    printf "round %s %-14s req/s %10s  p99 %8s\n" "$round" "$name" "$rps" "$p99" | tee -a "$OUT/http.txt"
  done
done
echo "serve RSS after the runs: $(rss), peak (VmHWM) $(hwm)"

echo "== ratios (each against the mean of its round's two /healthz runs; flows also against the clusters of the same zoom)"
awk '
  { r[$2, $3] = r[$2, $3] ? (r[$2, $3] + $5) / 2 : $5; rounds[$2] = 1 }
  END {
    for (k in rounds) {
      h = r[k, "healthz"]
      printf "round %s  clusters z3 %.2f  z6 %.2f  z10 %.2f of healthz   flows z3 %.2f  z6 %.2f of clusters\n", k,
        r[k, "clusters_z3"] / h, r[k, "clusters_z6"] / h, r[k, "clusters_z10"] / h,
        r[k, "flows_z3"] / r[k, "clusters_z3"], r[k, "flows_z6"] / r[k, "clusters_z6"]
    }
  }' "$OUT/http.txt" | tee "$OUT/ratios.txt"
