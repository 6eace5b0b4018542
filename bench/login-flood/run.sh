#!/usr/bin/env bash
# Login flood benchmark (issue 18, docs/reliability.md "Login flood"), before/after in one
# run: for each binary, a fresh database with BANDS imported bands, `bandmap serve` on
# PORT, then flood.mjs — CONNS connections posting wrong passwords for DURATION seconds,
# FLOODS times in a row, while /readyz, /api/search and the admin band list are sampled
# every second (p50/p99/max of each, login rate, status counts).
#
#   bench/login-flood/run.sh                         # the binary of this checkout only
#   BEFORE_BIN=/path/to/main/bandmap bench/login-flood/run.sh   # before/after
#
# Needs: PostgreSQL+PostGIS on 127.0.0.1:5432 (user postgres, trust), node (no npm
# packages). Env: DURATION (60), CONNS (200), FLOODS (3), BANDS (5000), PORT (18090),
# AFTER_BIN (default: target/debug/bandmap, built here), BEFORE_BIN (optional).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/bench/login-flood"
DURATION=${DURATION:-60}
CONNS=${CONNS:-200}
FLOODS=${FLOODS:-3}
BANDS=${BANDS:-5000}
PORT=${PORT:-18090}
PG=${BENCH_PG:-postgres://postgres@127.0.0.1:5432}
PASSWORD="bench-$(head -c 18 /dev/urandom | base64 | tr -dc 'A-Za-z0-9')"
WORK=$(mktemp -d)
SERVER_PID=""

cleanup() {
  if [[ -n "$SERVER_PID" ]]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

if [[ -z "${AFTER_BIN:-}" ]]; then
  (cd "$ROOT" && cargo build -q -p bandmap)
  AFTER_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/debug/bandmap"
fi

# Bands for the search to find ("Band N"), European so the import keeps them.
node -e '
  const n = Number(process.argv[1]);
  const out = [];
  for (let i = 1; i <= n; i += 1) out.push(JSON.stringify({ ma_id: i, name: `Band ${i}`, country_code: "NO", genre: "Black Metal" }));
  process.stdout.write(out.join("\n") + "\n");
' "$BANDS" > "$WORK/bands.ndjson"

run_one() {
  local label=$1 bin=$2 db="bandmap_bench_login_${1}"
  local url="${PG}/${db}"
  psql "${PG}/postgres" -qc "DROP DATABASE IF EXISTS ${db} WITH (FORCE)" >/dev/null
  psql "${PG}/postgres" -qc "CREATE DATABASE ${db}" >/dev/null
  psql "${url}" -qc "CREATE EXTENSION IF NOT EXISTS postgis; CREATE EXTENSION IF NOT EXISTS pg_trgm;" >/dev/null
  local env=(env -i PATH="$PATH" HOME="$HOME" DATABASE_URL="$url" BIND_ADDR="127.0.0.1:${PORT}"
    GEOCODER_PROVIDER=none UPSTREAM_MODE="recorded:$ROOT/demo/upstream"
    ADMIN_SEED_USERNAME=admin ADMIN_SEED_PASSWORD="$PASSWORD"
    ADMIN_JWT_SECRET="bench-secret-0123456789abcdef0123456789abcdef" RUST_LOG=warn)
  (cd "$WORK" && "${env[@]}" "$bin" migrate >/dev/null)
  (cd "$WORK" && "${env[@]}" "$bin" import "$WORK/bands.ndjson" >/dev/null)
  (cd "$WORK" && exec "${env[@]}" "$bin" serve) >"$WORK/${label}.log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 60); do curl -fsS "http://127.0.0.1:${PORT}/readyz" >/dev/null 2>&1 && break; sleep 1; done
  curl -fsS "http://127.0.0.1:${PORT}/readyz" >/dev/null || { tail -30 "$WORK/${label}.log"; exit 1; }
  LABEL="$label" ADMIN_USER=admin ADMIN_PASSWORD="$PASSWORD" \
    node "$HERE/flood.mjs" "http://127.0.0.1:${PORT}" "$DURATION" "$CONNS" "$FLOODS" | tee "$WORK/${label}.out"
  echo "[$label] rows in admin_login_attempts: $(psql "$url" -tAc 'SELECT count(*) FROM admin_login_attempts')"
  echo "[$label] WARN lines logged: $(grep -c WARN "$WORK/${label}.log" || true)"
  kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID=""
  psql "${PG}/postgres" -qc "DROP DATABASE IF EXISTS ${db} WITH (FORCE)" >/dev/null
}

if [[ -n "${BEFORE_BIN:-}" ]]; then run_one before "$BEFORE_BIN"; fi
run_one after "$AFTER_BIN"

echo
echo "== summary (p99 ms of each sampled endpoint, per flood)"
for label in before after; do
  [[ -f "$WORK/${label}.out" ]] || continue
  grep '^RESULT ' "$WORK/${label}.out" | sed 's/^RESULT //' | node -e '
    let s = ""; process.stdin.on("data", (d) => { s += d; }).on("end", () => {
      for (const r of JSON.parse(s)) {
        console.log(`${r.label.padEnd(6)} flood ${r.flood}: ${String(r.logins_per_s).padStart(6)} logins/s  readyz ${r.readyz.p99_ms}  search ${r.search.p99_ms}  admin list ${r.admin_list.p99_ms}`);
      }
    });'
done
