#!/usr/bin/env bash
# Search flood benchmark (issue 18; figures in docs/reliability.md, "Search flood").
# For each binary (BEFORE_BIN, e.g. a build of an older main, then AFTER_BIN): a fresh
# database of BANDS bands with random names, `bandmap serve` on it, then flood.py —
# CONNS connections on /api/search for DURATION seconds, ROUNDS times, first from one
# address, then (--spread) from 200 addresses — while /readyz, /api/search and the admin
# band list are sampled every second (p50/p99/max in ms). Both binaries run in the same
# run, on the same data, so the figures compare.
# Needs: PostgreSQL+PostGIS on 127.0.0.1:5432 (user postgres), python3. Loopback only.
# Env: DURATION (60), ROUNDS (3), CONNS (200), BANDS (150000), PORT (18081),
#      BEFORE_BIN (unset: skip), AFTER_BIN (target/release/bandmap, built when missing),
#      PROFILE (release), MODES ("single spread").
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/bench/search-flood"
DURATION=${DURATION:-60}
ROUNDS=${ROUNDS:-3}
CONNS=${CONNS:-200}
BANDS=${BANDS:-150000}
PORT=${PORT:-18081}
PROFILE=${PROFILE:-release}
MODES=${MODES:-single spread}
PG="postgres://postgres@127.0.0.1:5432"
PASSWORD="bench-flood-password"
cd "$ROOT"

if [ -z "${AFTER_BIN:-}" ]; then
  BANDMAP_ALLOW_MISSING_WEB=1 cargo build -q --profile "$PROFILE" -p bandmap
  AFTER_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/$PROFILE/bandmap"
fi

run_one() {
  local label=$1 bin=$2 db=bandmap_bench_search_$1
  psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db"
  psql "$PG/$db" -qc "CREATE EXTENSION IF NOT EXISTS postgis; CREATE EXTENSION IF NOT EXISTS pg_trgm;"
  DATABASE_URL="$PG/$db" "$bin" migrate >/dev/null
  psql "$PG/$db" -qc "
    INSERT INTO bands (ma_id, name, country, genre)
    SELECT g, initcap(substr(md5(g::text), 1, 4 + g % 9)) || CASE WHEN g % 3 = 0 THEN ' '
               || substr(md5((g * 7)::text), 1, 5) ELSE '' END,
           'Norway', 'Black Metal'
    FROM generate_series(1, $BANDS) g;
    ANALYZE bands;"
  local log; log=$(mktemp)
  env -i PATH="$PATH" DATABASE_URL="$PG/$db" BIND_ADDR="127.0.0.1:$PORT" \
    ADMIN_SEED_USERNAME=admin ADMIN_SEED_PASSWORD="$PASSWORD" \
    ADMIN_JWT_SECRET="bench-secret-0123456789abcdef0123456789" \
    GEOCODER_PROVIDER=none RUST_LOG=warn "$bin" serve >"$log" 2>&1 &
  local pid=$!
  for _ in $(seq 1 60); do curl -fsS "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && break; sleep 1; done
  for mode in $MODES; do
    echo "== $label, flood from $( [ "$mode" = spread ] && echo "200 addresses" || echo "one address" )"
    python3 "$HERE/flood.py" --port "$PORT" --duration "$DURATION" --rounds "$ROUNDS" \
      --conns "$CONNS" --password "$PASSWORD" $( [ "$mode" = spread ] && echo --spread )
  done
  kill "$pid"; wait "$pid" 2>/dev/null || true
  rm -f "$log"
  psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)"
}

[ -n "${BEFORE_BIN:-}" ] && run_one before "$BEFORE_BIN"
run_one after "$AFTER_BIN"
