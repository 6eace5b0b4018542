#!/usr/bin/env bash
# Time from `bandmap all` on a fresh database to the populated demo map (docs/demo.md):
# the same configuration as the `.env` scripts/setup.sh writes (recorded upstream pages and
# LLM answers, offline gazetteer, CRAWLER_DELAY_MS=100, CRAWLER_COUNTRY_PAUSE_MS=200), on a
# database and port of its own. Prints, in seconds since the process started: the first
# point on /api/clusters, the whole demo on the map (every European band placed, the LLM's
# rows included), the end of the enrichment (every band page read).
# Needs: PostgreSQL+PostGIS on 127.0.0.1:5432 (user postgres), a built binary.
# Env: BIN (target/release/bandmap), PORT (18095), BENCH_DB (bandmap_bench_demo),
#      EXPECT (points of the full demo map: 315 = 312 placed steps + 3 country centroids),
#      BANDS (European bands of the demo: 308).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
source "$ROOT/scripts/lib.sh"
BIN=${BIN:-$ROOT/target/release/bandmap}
PORT=${PORT:-18095}
DB=${BENCH_DB:-bandmap_bench_demo}
EXPECT=${EXPECT:-315}
BANDS=${BANDS:-308}
BASE="http://127.0.0.1:$PORT"
[ -x "$BIN" ] || { echo "no binary at $BIN (cargo build --release -p bandmap, or set BIN)" >&2; exit 1; }

psql_super -d postgres -c "DROP DATABASE IF EXISTS ${DB} WITH (FORCE)"
psql_super -d postgres -c "CREATE DATABASE ${DB}"
psql_super -d "$DB" -c "CREATE EXTENSION IF NOT EXISTS postgis; CREATE EXTENSION IF NOT EXISTS pg_trgm;"

work=$(mktemp -d)
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$t0" 'BEGIN { printf "%.1f", a - b }'; }
t0=$(now)
(
  cd "$work"   # no .env here: the environment below is the whole configuration
  exec env -i PATH="$PATH" HOME="$HOME" \
    DATABASE_URL="postgres://postgres@127.0.0.1:5432/${DB}" BIND_ADDR="127.0.0.1:${PORT}" \
    UPSTREAM_MODE="recorded:$ROOT/demo/upstream" LLM_MODE="recorded:$ROOT/demo/llm" \
    GAZETTEER_PATH="$ROOT/data/gazetteer/europe.tsv" WEB_DIR="$ROOT/web" \
    GEOCODER_PROVIDER=none CRAWLER_DELAY_MS=100 CRAWLER_COUNTRY_PAUSE_MS=200 \
    ADMIN_SEED_USERNAME=admin ADMIN_SEED_PASSWORD="bench-$(head -c 9 /dev/urandom | base64 | tr -dc 'A-Za-z0-9')" \
    ADMIN_JWT_SECRET="bench-secret-0123456789abcdef0123456789abcdef" RUST_LOG=warn \
    "$BIN" all
) >"$work/bandmap.log" 2>&1 &
pid=$!
cleanup() { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }
trap cleanup EXIT

points() {
  curl -fsS "$BASE/api/clusters" 2>/dev/null |
    python3 -c 'import json,sys; print(sum(f["properties"].get("count",1) for f in json.load(sys.stdin)["features"]))' 2>/dev/null ||
    echo 0
}
first="" full="" enriched=""
for _ in $(seq 1 1200); do
  n=$(points)
  t=$(now)
  [ -z "$first" ] && [ "$n" -gt 0 ] && first=$(since "$t")
  [ -z "$full" ] && [ "$n" -ge "$EXPECT" ] && full=$(since "$t")
  if [ -z "$enriched" ]; then
    done_all=$(psql_super -d "$DB" -tAc "SELECT count(*) >= ${BANDS} AND bool_and(enriched) FROM bands" 2>/dev/null || echo f)
    [ "$done_all" = "t" ] && enriched=$(since "$t")
  fi
  [ -n "$full" ] && [ -n "$enriched" ] && break
  sleep 0.5
done
printf 'first point on the map: %6.1f s\n' "${first:-nan}"
printf 'full demo map (%s):    %6.1f s\n' "$EXPECT" "${full:-nan}"
printf 'enrichment done:        %6.1f s\n' "${enriched:-nan}"
[ -n "$full" ] || { tail -30 "$work/bandmap.log"; echo "the map never reached $EXPECT points" >&2; exit 1; }
