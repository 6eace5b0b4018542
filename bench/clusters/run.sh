#!/usr/bin/env bash
# Map clusters benchmark, in one run (docs/performance.md, "Clusters"):
#   (a) /api/clusters over HTTP with wrk at zoom 3, 6, 10 with and without a genre filter,
#       z3 with and without the family breakdown (alternated), and /healthz as the baseline, against `bandmap serve` (release) on 150,000 points;
#   (b) the same queries answered by straightforward PostGIS SQL (ST_SnapToGrid), pgbench;
#   (c) in-process: snapshot build and query times (cargo bench -p bandmap-index) against
#       supercluster (npm) on the same points; never-seen / repeated filter queries;
#   serve RSS with the points loaded.
# Needs: PostgreSQL+PostGIS on 127.0.0.1:5432 (user postgres, trust), wrk, pgbench, node/npm.
# Env: POINTS (150000), DUR (wrk/pgbench seconds, 5), CONN (wrk connections, 32),
#      PORT (18080), BENCH_DB (bandmap_bench_clusters).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/bench/clusters"
OUT="$HERE/out"
POINTS=${POINTS:-150000}
DUR=${DUR:-5}
CONN=${CONN:-32}
PORT=${PORT:-18080}
DB=${BENCH_DB:-bandmap_bench_clusters}
PG="postgres://postgres@127.0.0.1:5432"
BASE="http://127.0.0.1:$PORT"
mkdir -p "$OUT"
cd "$ROOT"

command -v wrk >/dev/null || { echo "wrk missing: apt-get install -y wrk" >&2; exit 1; }

echo "== build (release)"
# The API benchmark needs no front end: build even without web/vendor (crates/api/build.rs).
BANDMAP_ALLOW_MISSING_WEB=1 cargo build --release -p bandmap -q
BIN="$ROOT/target/release/bandmap"

echo "== (c) in-process map index (cargo bench -p bandmap-index --bench clusters)"
cargo bench -q -p bandmap-index --bench clusters -- --points "$POINTS" --write "$OUT/data" | tee "$OUT/inproc.txt"
view() { awk -v z="z$1" '$1 == "viewport" && $2 == z {print $3}' "$OUT/inproc.txt"; }

echo "== (c) supercluster (npm) on the same points"
(cd "$HERE" && [ -d node_modules/supercluster ] || npm install --no-audit --no-fund -s)
node "$HERE/supercluster.mjs" "$OUT/data/points.tsv" "3:$(view 3)" "6:$(view 6)" "10:$(view 10)" | tee "$OUT/supercluster.txt"

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
echo "points in database: $(psql "$DATABASE_URL" -tAc "SELECT count(*) FROM band_locations WHERE geocode_status IN ('done','country_only')")"

echo "== start bandmap serve on $BASE"
(cd "$OUT" && BIND_ADDR="127.0.0.1:$PORT" RUST_LOG=warn GEOCODER_PROVIDER=none exec "$BIN" serve >"$OUT/serve.log" 2>&1) &
SERVE=$!
trap 'kill $SERVE 2>/dev/null || true' EXIT
for _ in $(seq 1 300); do curl -fs "$BASE/readyz" >/dev/null 2>&1 && break; sleep 0.2; done
start=$(date +%s.%N)
curl -fs "$BASE/api/clusters?zoom=3" -o /dev/null
echo "first /api/clusters (loads the snapshot): $(echo "$(date +%s.%N) - $start" | bc) s"
SPID=$(pgrep -P "$SERVE" bandmap || echo "$SERVE")
rss() { awk '/VmRSS/ {print $2/1024 " MB"}' "/proc/$SPID/status"; }
echo "serve RSS after load: $(rss)"

run_wrk() { # name url
  local res
  res=$(wrk --latency -t2 -c"$CONN" -d"${DUR}s" "$2")
  local rps p50 p99
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$res")
  p50=$(awk '$1 == "50%" {print $2}' <<<"$res")
  p99=$(awk '$1 == "99%" {print $2}' <<<"$res")
  printf "http %-28s req/s %10s  p50 %8s  p99 %8s\n" "$1" "$rps" "$p50" "$p99" | tee -a "$OUT/http.txt"
}
echo "== (a) HTTP: wrk -t2 -c$CONN -d${DUR}s --latency (server and wrk share the machine)"
: >"$OUT/http.txt"
run_wrk healthz "$BASE/healthz"
for z in 3 6 10; do
  run_wrk "clusters z$z" "$BASE/api/clusters?zoom=$z&bbox=$(view "$z")"
  run_wrk "clusters z$z genre=black" "$BASE/api/clusters?zoom=$z&bbox=$(view "$z")&genre=black"
done
# The family breakdown (issue 16): z3 without and with it, alternated three times so that
# both see the same machine; the ratio of the medians is the cost.
for _ in 1 2 3; do
  run_wrk "clusters z3 (plain)" "$BASE/api/clusters?zoom=3&bbox=$(view 3)"
  run_wrk "clusters z3 breakdown=families" "$BASE/api/clusters?zoom=3&bbox=$(view 3)&breakdown=families"
done
med() { grep -F "$1 " "$OUT/http.txt" | awk '{print $(NF-4)}' | sort -n | sed -n 2p; }
plain=$(med "clusters z3 (plain)"); with=$(med "clusters z3 breakdown=families")
echo "breakdown z3: plain $plain req/s, with $with req/s, ratio $(echo "$with / $plain" | bc -l | cut -c1-5)" | tee -a "$OUT/http.txt"
run_wrk healthz "$BASE/healthz"
echo "serve RSS after the HTTP runs: $(rss) (peak $(awk '/VmHWM/ {print $2/1024 " MB"}' "/proc/$SPID/status"))"

echo "== (b) PostGIS baseline: ST_SnapToGrid grouping, pgbench -c2 -j2 -T$DUR"
: >"$OUT/sql.txt"
for z in 3 6 10; do
  for g in none black; do
    IFS=, read -r w s e n <<<"$(view "$z")"
    cell=$(echo "40075016.68557849 / 2^($z + 2)" | bc -l)
    filter=""; [ "$g" = none ] || filter="AND b.genre ILIKE '%$g%'"
    cat >"$OUT/q.sql" <<SQL
SELECT json_build_object('type', 'FeatureCollection', 'features', coalesce(json_agg(f), '[]'))::text
FROM (SELECT json_build_object('type', 'Feature',
        'geometry', json_build_object('type', 'Point', 'coordinates', json_build_array(avg(bl.lon), avg(bl.lat))),
        'properties', json_build_object('cluster', count(*) > 1, 'count', count(*))) AS f
      FROM band_locations bl JOIN bands b ON b.ma_id = bl.ma_id
      WHERE bl.geocode_status IN ('done', 'country_only')
        AND bl.geom && ST_MakeEnvelope($w, $s, $e, $n, 4326) $filter
      GROUP BY ST_SnapToGrid(ST_Transform(bl.geom, 3857), $cell)) c;
SQL
    rm -f "$OUT"/pgb.*
    res=$(cd "$OUT" && pgbench -n -c2 -j2 -T"$DUR" -f q.sql -l --log-prefix=pgb "$DATABASE_URL" 2>&1)
    tps=$(awk '/^tps/ {print $3}' <<<"$res")
    lat=$(cat "$OUT"/pgb.* | awk '{print $3}' | sort -n)
    cnt=$(wc -l <<<"$lat")
    p50=$(sed -n "$((cnt / 2 + 1))p" <<<"$lat"); p99=$(sed -n "$((cnt * 99 / 100 + 1))p" <<<"$lat")
    printf "sql  %-28s req/s %10s  p50 %6.2fms  p99 %6.2fms\n" "clusters z$z genre=$g" "$tps" \
      "$(echo "$p50 / 1000" | bc -l)" "$(echo "$p99 / 1000" | bc -l)" | tee -a "$OUT/sql.txt"
  done
done
rm -f "$OUT"/pgb.* "$OUT/q.sql"

echo "== summary"
cat "$OUT/http.txt" "$OUT/sql.txt"
grep -E '^inproc (build|snapshot|never|repeated|breakdown)' "$OUT/inproc.txt"
grep -E 'build_ms|getClusters' "$OUT/supercluster.txt"
echo "serve RSS (end): $(rss)"
