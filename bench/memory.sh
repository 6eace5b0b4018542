#!/usr/bin/env bash
# Memory of `bandmap serve` with 150,000 map points and 120,000 bands (issue 16 item 10;
# docs/performance.md, "Serve memory"), measured from outside: VmRSS and VmHWM of
# /proc/PID/status, sampled every 0.2 s. Each binary given is measured in turn on the same
# database in the same run (before = a build of main, after = this tree):
#   start → the map index and the admin band search load → a workload of cluster queries
#   (zooms 3–12, with and without filters and the family breakdown, 40 distinct filters) →
#   one data change (a rebuild of the map snapshot while the old one serves) → the
#   workload again → settle.
# "steady" = median RSS over the last 5 s; "peak" = VmHWM at the end.
#
# Usage: bench/memory.sh [BIN ...]   (default: $CARGO_TARGET_DIR/release/bandmap or
#        target/release/bandmap). Label a binary with LABEL=path, e.g.
#        bench/memory.sh before=/tmp/main-bandmap after=target/release/bandmap
# Env: POINTS (150000), BANDS (120000), PORT (18173), BENCH_DB (bandmap_bench_memory),
#      ACCEPT_ENCODING (unset: none; e.g. "gzip, deflate, br, zstd", what Chromium sends,
#      on every workload request: the compressed answers kept, crates/api/src/encoded).
# Needs PostgreSQL+PostGIS on 127.0.0.1:5432 (user postgres, trust), curl.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT="$ROOT/bench/out/memory"
POINTS=${POINTS:-150000}
BANDS=${BANDS:-120000}
PORT=${PORT:-18173}
DB=${BENCH_DB:-bandmap_bench_memory}
PG="postgres://postgres@127.0.0.1:5432"
BASE="http://127.0.0.1:$PORT"
mkdir -p "$OUT"

BINS=("$@")
if [ ${#BINS[@]} -eq 0 ]; then
  BINS=("after=${CARGO_TARGET_DIR:-$ROOT/target}/release/bandmap")
fi

ASK=()
if [ -n "${ACCEPT_ENCODING:-}" ]; then ASK=(-H "Accept-Encoding: $ACCEPT_ENCODING"); fi
if curl -s -o /dev/null "$BASE/healthz"; then echo "port $PORT is in use: set PORT" >&2; exit 1; fi

echo "== database $DB: $BANDS bands, $POINTS located steps"
psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" >/dev/null
export DATABASE_URL="$PG/$DB"
first=${BINS[0]#*=}
(cd "$OUT" && "$first" migrate >/dev/null)
psql "$DATABASE_URL" -q -v bands="$BANDS" -v points="$POINTS" <<'SQL'
SELECT setseed(0.16);
CREATE TEMP TABLE towns AS
  SELECT t AS id, 'Town ' || t AS name,
         -10 + 50 * power(random(), 1.3) AS lon, 36 + 34 * random() AS lat
  FROM generate_series(1, 8000) t;
CREATE TEMP TABLE styles AS
  SELECT row_number() OVER () - 1 AS i, s FROM unnest(ARRAY[
    'Black Metal', 'Death Metal', 'Thrash Metal', 'Heavy Metal', 'Doom Metal', 'Power Metal',
    'Progressive Metal', 'Folk Metal', 'Speed Metal', 'Gothic Metal', 'Symphonic Metal',
    'Melodic Death Metal', 'Sludge Metal', 'Stoner Metal', 'Viking Metal', 'Pagan Black Metal',
    'Atmospheric Black Metal', 'Technical Death Metal', 'Brutal Death Metal', 'Groove Metal',
    'Industrial Metal', 'Avant-garde Metal', 'Crust/Grindcore', 'Black/Death Metal',
    'Death/Doom Metal', 'Heavy/Power Metal', 'Deathcore', 'Symphonic Black Metal']) s;
INSERT INTO bands (ma_id, name, genre, country, country_code, status, formed_year,
                   location_text, themes, lat, lon)
SELECT b,
       'Band ' || md5(b::text)::varchar(10),
       (SELECT s FROM styles WHERE i = b % 28),
       (ARRAY['Germany','France','Norway','Sweden','Finland','Poland','Italy','Spain','Greece','Netherlands'])[1 + b % 10],
       (ARRAY['DE','FR','NO','SE','FI','PL','IT','ES','GR','NL'])[1 + b % 10],
       (ARRAY['Active','Split-up','On hold','Changed name','Unknown'])[1 + (b * 7) % 5],
       1970 + b % 54,
       'Town ' || (1 + b % 8000) || ', Region ' || (b % 97),
       (ARRAY['Darkness, Death','War, History','Nature, Paganism','Satanism, Anti-Christianity','Misanthropy, Depression, Suicide'])[1 + b % 5],
       NULL, NULL
FROM generate_series(1, :bands) b;
-- Every band one located step, the remaining points as later steps of the first bands.
INSERT INTO band_locations (id, ma_id, step_order, parsed_step, step_label, location_raw, lat, lon, geocode_status)
SELECT p, 1 + (p - 1) % :bands, (p - 1) / :bands, (p - 1) / :bands,
       CASE WHEN p > :bands THEN 'later' END,
       t.name, t.lat + (random() - 0.5) * 0.02, t.lon + (random() - 0.5) * 0.02,
       CASE WHEN p % 10 = 0 THEN 'country_only' ELSE 'done' END
FROM generate_series(1, :points) p
JOIN towns t ON t.id = 1 + (hashint4(p) & 2147483647) % 8000;
SELECT setval('band_locations_id_seq', (SELECT max(id) FROM band_locations));
UPDATE bands b SET lat = l.lat, lon = l.lon FROM band_locations l WHERE l.ma_id = b.ma_id AND l.step_order = 0;
VACUUM ANALYZE bands; VACUUM ANALYZE band_locations;
SQL
echo "bands: $(psql "$DATABASE_URL" -tAc 'SELECT count(*) FROM bands'), map points: $(psql "$DATABASE_URL" -tAc "SELECT count(*) FROM band_locations WHERE geocode_status IN ('done','country_only')")"

workload() {
  local f
  for z in 3 4 5 6 8 10 12; do
    for f in "" "&genre=black" "&breakdown=families" "&family=doom,death&breakdown=families" "&status=active"; do
      curl -fs "${ASK[@]}" "$BASE/api/clusters?zoom=$z$f" -o /dev/null || true
    done
  done
  for y in $(seq 1980 2019); do # 40 distinct filters (the timeline's play button)
    curl -fs "${ASK[@]}" "$BASE/api/clusters?zoom=4&bbox=-20,30,45,72&year_max=$y&breakdown=families" -o /dev/null || true
  done
  # The flows layer (issue 27; a build without it answers 404): its views and the
  # timeline's filters, as the page asks them with the layer on.
  for z in 3 4 6 8 10; do
    curl -fs "${ASK[@]}" "$BASE/api/flows?zoom=$z" -o /dev/null || true
    curl -fs "${ASK[@]}" "$BASE/api/flows?zoom=$z&family=black,death&limit=200" -o /dev/null || true
  done
  for y in $(seq 1980 2019); do
    curl -fs "${ASK[@]}" "$BASE/api/flows?zoom=4&bbox=-20,30,45,72&year_max=$y" -o /dev/null || true
  done
}

measure() { # label binary
  local label=$1 bin=$2 log="$OUT/serve-$1.log" samples="$OUT/rss-$1.txt"
  (cd "$OUT" && BIND_ADDR="127.0.0.1:$PORT" RUST_LOG=warn GEOCODER_PROVIDER=none \
    PUBLIC_RATE_PER_SEC=1000000 PUBLIC_RATE_BURST=1000000 exec "$bin" serve >"$log" 2>&1) &
  local spid=$!
  for _ in $(seq 1 300); do curl -fs "$BASE/readyz" >/dev/null 2>&1 && break; sleep 0.2; done
  kill -0 "$spid" 2>/dev/null || { echo "serve ($label) did not start: $log" >&2; exit 1; }
  local pid
  pid=$(pgrep -P "$spid" bandmap || echo "$spid")
  : >"$samples"
  (while kill -0 "$pid" 2>/dev/null; do
     awk '/VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null >>"$samples" || true
     sleep 0.2
   done) &
  local sampler=$!
  curl -fs "$BASE/api/clusters?zoom=3" -o /dev/null # loads the map index
  sleep 5                                          # the band search loads beside it
  workload
  psql "$DATABASE_URL" -qc "UPDATE bands SET name = name || ' ' WHERE ma_id = 1" # a rebuild
  sleep 3
  workload
  sleep 10
  local hwm
  hwm=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
  kill "$spid" 2>/dev/null || true
  wait "$spid" 2>/dev/null || true
  kill "$sampler" 2>/dev/null || true
  local steady
  steady=$(tail -n 25 "$samples" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  local max
  max=$(sort -n "$samples" | tail -n 1)
  printf "memory %-8s steady RSS %6.1f MB  peak (VmHWM) %6.1f MB  max sampled RSS %6.1f MB\n" \
    "$label" "$(echo "$steady / 1024" | bc -l)" "$(echo "$hwm / 1024" | bc -l)" "$(echo "$max / 1024" | bc -l)" \
    | tee -a "$OUT/summary.txt"
}

: >"$OUT/summary.txt"
for spec in "${BINS[@]}"; do
  label=${spec%%=*}; bin=${spec#*=}
  [ "$label" = "$spec" ] && label=$(basename "$(dirname "$(dirname "$bin")")")
  measure "$label" "$bin"
done
echo "== summary (MB = MiB of /proc/PID/status)"
cat "$OUT/summary.txt"
