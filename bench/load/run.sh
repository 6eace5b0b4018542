#!/usr/bin/env bash
# Load with the workers running (docs/reliability.md, "Load with the workers running").
# One `bandmap all` on a fresh database, crawling the recorded demo upstream (slowly, so the
# crawl lasts through the runs), enqueueing, geocoding (offline gazetteer) and rebuilding the
# map index, while bench/load/client.mjs drives CLIENTS concurrent clients on /api/clusters
# (varied views and filters), ADMIN_CLIENTS on the admin lists and one importer feeding new
# bands, for DUR seconds — RUNS consecutive times against the same process. Prints, per run,
# per endpoint count / errors / p50 / p99, and the process RSS at the start, middle and end
# of each run; exits non-zero on any error. `bandmap all` is one process: its RSS is the
# server's plus the workers'. Latencies are also given as ratios (xN) to a baseline measured
# first in the same session: the same number of clients on /healthz, which touches neither
# the database nor the index (closed loops: latency ≈ clients / throughput, so the absolute
# figures say as much about the machine as about the server).
# Needs: PostgreSQL+PostGIS on 127.0.0.1:5432 (user postgres, trust; PG to change), node 20+,
# the gazetteer (scripts/fetch-gazetteer.sh).
# Env: DUR (60), CLIENTS (200), ADMIN_CLIENTS (20), RUNS (3), PORT (18090),
#      BENCH_DB (bandmap_bench_load), BIN (default: release build, built if missing),
#      CRAWLER_DELAY_MS (600: the demo crawl's ~300 requests span the three runs).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/bench/load"
OUT="$HERE/out"
DUR=${DUR:-60}
CLIENTS=${CLIENTS:-200}
ADMIN_CLIENTS=${ADMIN_CLIENTS:-20}
RUNS=${RUNS:-3}
PORT=${PORT:-18090}
DB=${BENCH_DB:-bandmap_bench_load}
PG=${PG:-postgres://postgres@127.0.0.1:5432}
BASE="http://127.0.0.1:$PORT"
mkdir -p "$OUT"
cd "$ROOT"

command -v node >/dev/null || { echo "node missing (scripts/setup-web.sh installs it)" >&2; exit 1; }
if [ -z "${BIN:-}" ]; then
  echo "== build (release)"
  cargo build --release -p bandmap -q
  BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/bandmap"
fi

echo "== database $DB"
psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "CREATE DATABASE $DB" >/dev/null
psql "$PG/$DB" -qc "CREATE EXTENSION IF NOT EXISTS postgis; CREATE EXTENSION IF NOT EXISTS pg_trgm;" >/dev/null

password="load-$(head -c 12 /dev/urandom | base64 | tr -dc 'A-Za-z0-9')"
token="load-import-$(head -c 12 /dev/urandom | base64 | tr -dc 'A-Za-z0-9')"
echo "== start bandmap all on $BASE"
(
  cd "$OUT"
  exec env -i PATH="$PATH" HOME="$HOME" \
    DATABASE_URL="$PG/$DB" BIND_ADDR="127.0.0.1:$PORT" \
    UPSTREAM_MODE="recorded:$ROOT/demo/upstream" GAZETTEER_PATH="$ROOT/data/gazetteer/europe.tsv" \
    GEOCODER_PROVIDER=none CRAWLER_DELAY_MS="${CRAWLER_DELAY_MS:-600}" CRAWLER_COUNTRY_PAUSE_MS=0 \
    MAP_TILE_URL=none ADMIN_SEED_USERNAME=admin ADMIN_SEED_PASSWORD="$password" \
    ADMIN_JWT_SECRET="load-secret-0123456789abcdef0123456789abcdef" \
    BANDMAP_IMPORT_TOKEN="$token" TRUST_PROXY=false RUST_LOG=warn NO_COLOR=1 \
    "$BIN" all
) >"$OUT/bandmap.log" 2>&1 &
APP=$!
FEED=""
cleanup() { [ -n "$FEED" ] && kill "$FEED" 2>/dev/null; kill "$APP" 2>/dev/null || true; wait "$APP" 2>/dev/null || true; }
trap cleanup EXIT
for _ in $(seq 1 300); do curl -fs "$BASE/readyz" >/dev/null 2>&1 && break; sleep 0.5; done
curl -fs "$BASE/readyz" >/dev/null || { tail -40 "$OUT/bandmap.log"; echo "bandmap did not start" >&2; exit 1; }

# Imported bands reach the enqueue daemon through a trigger (it polls every 15 s).
(
  while sleep 5; do
    psql "$PG/$DB" -qc "INSERT INTO job_triggers (job_type, created_by)
      SELECT 'geocoder_enqueue', 'bench' WHERE NOT EXISTS
      (SELECT 1 FROM job_triggers WHERE job_type = 'geocoder_enqueue' AND status = 'pending')" >/dev/null 2>&1 || true
  done
) &
FEED=$!

rss() { awk '/^VmRSS/ {printf "%.1f", $2 / 1024}' "/proc/$APP/status"; }
pipeline() {
  psql "$PG/$DB" -tAc "SELECT
    (SELECT count(*) FROM bands) || ' bands, ' ||
    (SELECT count(*) FROM band_locations WHERE geocode_status IN ('done','country_only')) || ' mapped, ' ||
    (SELECT count(*) FROM band_locations WHERE geocode_status IN ('pending','processing')) || ' queued, ' ||
    (SELECT count(*) FROM crawl_run WHERE status = 'running') || ' runs running, ' ||
    (SELECT count(*) FROM crawl_run) || ' runs'"
}

errors=0
summary="$OUT/summary.txt"
: >"$summary"
BASE_DUR=${BASE_DUR:-15}
echo "== baseline: $CLIENTS clients on /healthz, ${BASE_DUR}s (same process, workers running)"
node "$HERE/client.mjs" "$BASE" "$BASE_DUR" "$CLIENTS" 0 "$password" "$token" 0 baseline >"$OUT/baseline.json"
node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const h = r.endpoints["GET /healthz"];
  console.log(`baseline: GET /healthz ${h.count} req in ${r.seconds}s (${(h.count / r.seconds).toFixed(0)}/s), ${h.errors} err, p50 ${h.p50_ms} ms, p99 ${h.p99_ms} ms`);
' "$OUT/baseline.json" | tee -a "$summary"
for run in $(seq 1 "$RUNS"); do
  echo "== run $run: $CLIENTS clients on /api/clusters, $ADMIN_CLIENTS on the admin lists, ${DUR}s"
  start_rss=$(rss); start_pipe=$(pipeline)
  node "$HERE/client.mjs" "$BASE" "$DUR" "$CLIENTS" "$ADMIN_CLIENTS" "$password" "$token" "$run" >"$OUT/run$run.json" &
  CLIENT=$!
  sleep $((DUR / 2))
  mid_rss=$(rss); mid_pipe=$(pipeline)
  wait "$CLIENT"
  end_rss=$(rss); end_pipe=$(pipeline)
  node -e '
    const fs = require("fs");
    const r = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
    const b = JSON.parse(fs.readFileSync(process.argv[8], "utf8")).endpoints["GET /healthz"];
    const [s, m, e, ps, pm, pe] = process.argv.slice(2, 8);
    console.log(`run ${r.run}: ${r.requests} requests in ${r.seconds}s (${(r.requests / r.seconds).toFixed(0)}/s), ${r.errors} errors; RSS start ${s} MB, middle ${m} MB, end ${e} MB`);
    console.log(`  pipeline start: ${ps}\n  pipeline middle: ${pm}\n  pipeline end: ${pe}`);
    for (const [k, v] of Object.entries(r.endpoints))
      console.log(`  ${k.padEnd(34)} ${String(v.count).padStart(7)} req  ${String(v.errors).padStart(3)} err  p50 ${String(v.p50_ms).padStart(7)} ms (x${(v.p50_ms / b.p50_ms).toFixed(2)})  p99 ${String(v.p99_ms).padStart(7)} ms (x${(v.p99_ms / b.p99_ms).toFixed(2)})`);
    for (const e of r.firstErrors) console.log(`  error: ${e}`);
  ' "$OUT/run$run.json" "$start_rss" "$mid_rss" "$end_rss" "$start_pipe" "$mid_pipe" "$end_pipe" "$OUT/baseline.json" | tee -a "$summary"
  errors=$((errors + $(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).errors)' "$OUT/run$run.json")))
done
echo "== $(nproc) cores; total errors: $errors" | tee -a "$summary"
echo "== error lines in the bandmap log: $(grep -c ' ERROR ' "$OUT/bandmap.log" || true)" | tee -a "$summary"
[ "$errors" -eq 0 ]
