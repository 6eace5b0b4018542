#!/usr/bin/env bash
# Slow-client benchmark (issue 31; figures in docs/reliability.md, "Slow clients"). For each
# binary (BEFORE_BIN, e.g. a build of the commit before issue 31, then AFTER_BIN): a fresh
# database with one band, `bandmap serve` exposed directly (TRUST_PROXY=false, as the quick
# start), then attack.py from 127.0.0.2 — 520 non-reading connections pipelining requests
# for a large answer; 600 trickling logins — while /healthz and a band card are probed from
# 127.0.0.1; then a minute of refused logins with random usernames from one locked address,
# and the rows it wrote. Both binaries in the same run, on the same data.
# Needs: PostgreSQL+PostGIS on 127.0.0.1:5432 (user postgres), python3. Loopback only.
# Env: DURATION (20), REFUSED_SECS (60), PORT (18083), BEFORE_BIN (unset: skip),
#      AFTER_BIN (target/release/bandmap, built when missing), PROFILE (release),
#      SCENARIOS ("nonreading trickle refused").
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/bench/slow-clients"
DURATION=${DURATION:-20}
REFUSED_SECS=${REFUSED_SECS:-60}
PORT=${PORT:-18083}
PROFILE=${PROFILE:-release}
SCENARIOS=${SCENARIOS:-nonreading trickle refused}
PG="postgres://postgres@127.0.0.1:5432"
cd "$ROOT"

if [ -z "${AFTER_BIN:-}" ]; then
  BANDMAP_ALLOW_MISSING_WEB=1 cargo build -q --profile "$PROFILE" -p bandmap
  AFTER_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/$PROFILE/bandmap"
fi

run_one() {
  local label=$1 bin=$2 db=bandmap_bench_slow_$1
  psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db"
  psql "$PG/$db" -qc "CREATE EXTENSION IF NOT EXISTS postgis; CREATE EXTENSION IF NOT EXISTS pg_trgm;"
  DATABASE_URL="$PG/$db" "$bin" migrate >/dev/null
  psql "$PG/$db" -qc "INSERT INTO bands (ma_id, name, country, country_code) VALUES (1, 'Alpha', 'Norway', 'NO')"
  local log; log=$(mktemp)
  env -i PATH="$PATH" DATABASE_URL="$PG/$db" BIND_ADDR="0.0.0.0:$PORT" TRUST_PROXY=false \
    ADMIN_SEED_USERNAME=admin ADMIN_SEED_PASSWORD="bench-slow-password" \
    ADMIN_JWT_SECRET="bench-secret-0123456789abcdef0123456789" \
    GEOCODER_PROVIDER=none RUST_LOG=warn "$bin" serve >"$log" 2>&1 &
  local pid=$!
  for _ in $(seq 1 60); do curl -fsS "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && break; sleep 1; done
  if [[ " $SCENARIOS " == *" nonreading "* ]]; then
    echo "== $label: 520 non-reading connections (30 pipelined /api/openapi.json each)"
    python3 "$HERE/attack.py" nonreading --port "$PORT" --conns 520 --duration "$DURATION"
    sleep 2
  fi
  if [[ " $SCENARIOS " == *" trickle "* ]]; then
    echo "== $label: 600 trickling logins"
    python3 "$HERE/attack.py" trickle --port "$PORT" --conns 600 --duration "$DURATION"
    sleep 2
  fi
  if [[ " $SCENARIOS " == *" refused "* ]]; then
    echo "== $label: ${REFUSED_SECS} s of refused logins from 50 connections, random 200-character usernames, one locked address"
    python3 "$HERE/attack.py" refused --port "$PORT" --conns 50 --duration "$REFUSED_SECS"
    sleep 6 # the refused attempts are written every 5 s
    psql "$PG/$db" -tAc "SELECT '  rows: ' || count(*) || ' (5 of them the failures that locked the address), attempts counted: ' || coalesce(sum(attempts), 0) || ', longest username: ' || coalesce(max(length(username)), 0) FROM admin_login_attempts"
  fi
  kill "$pid"; wait "$pid" 2>/dev/null || true
  rm -f "$log"
  psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)"
}

[ -n "${BEFORE_BIN:-}" ] && run_one before "$BEFORE_BIN"
run_one after "$AFTER_BIN"
