#!/usr/bin/env bash
# End to end with the real binary: a fresh database, `bandmap all` on the recorded demo
# upstream (offline), wait until the pipeline has put bands on the map, then the browser
# tests (headless Chromium) and schemathesis against the running server.
source "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.."

: "${TEST_DATABASE_URL:?set by scripts/test.sh}"
db=${E2E_DB:-bandmap_e2e}
port=${E2E_PORT:-18080}
base="http://127.0.0.1:${port}"
admin_password="e2e-$(head -c 12 /dev/urandom | base64 | tr -dc 'A-Za-z0-9')"
import_token="e2e-import-$(head -c 36 /dev/urandom | base64 | tr -dc 'A-Za-z0-9')"  # at least 32 bytes (issue 18)
db_url="${TEST_DATABASE_URL%/*}/${db}"

psql_super -d postgres -c "DROP DATABASE IF EXISTS ${db} WITH (FORCE)"
psql_super -d postgres -c "CREATE DATABASE ${db}"
psql_super -d "${db}" -c "CREATE EXTENSION IF NOT EXISTS postgis; CREATE EXTENSION IF NOT EXISTS pg_trgm;"

cargo build -p bandmap
# The binary cargo just built (CARGO_TARGET_DIR when set, relative to the checkout).
target_dir=${CARGO_TARGET_DIR:-target}
case "$target_dir" in /*) ;; *) target_dir="$PWD/$target_dir" ;; esac
bin="$target_dir/debug/bandmap"
workdir=$(mktemp -d)
log_file="${workdir}/bandmap.log"
# The public rate limit is raised: schemathesis and the browser tests send hundreds of
# requests a second from one address (the limit has its own tests, crates/api/tests/api/limits.rs).
(
  cd "$workdir"   # no .env here: the environment below is the whole configuration
  exec env -i PATH="$PATH" HOME="$HOME" \
    DATABASE_URL="$db_url" BIND_ADDR="127.0.0.1:${port}" \
    UPSTREAM_MODE="recorded:$OLDPWD/demo/upstream" LLM_MODE="recorded:$OLDPWD/demo/llm" GAZETTEER_PATH="$OLDPWD/data/gazetteer/europe.tsv" \
    WEB_DIR="$OLDPWD/web" GEOCODER_PROVIDER=none CRAWLER_DELAY_MS=0 CRAWLER_COUNTRY_PAUSE_MS=0 \
    ADMIN_SEED_USERNAME=admin ADMIN_SEED_PASSWORD="$admin_password" \
    ADMIN_JWT_SECRET="e2e-secret-0123456789abcdef0123456789abcdef" \
    BANDMAP_IMPORT_TOKEN="$import_token" RUST_LOG=info \
    PUBLIC_RATE_PER_SEC=1000 PUBLIC_RATE_BURST=2000 \
    "${bin}" all
) >"$log_file" 2>&1 &
pid=$!
cleanup() { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }
trap cleanup EXIT

for _ in $(seq 1 120); do
  curl -fsS "${base}/readyz" >/dev/null 2>&1 && break
  sleep 1
done
curl -fsS "${base}/readyz" >/dev/null || { tail -50 "$log_file"; echo "server did not start" >&2; exit 1; }

# A band whose name is HTML: the front end must show it as text.
curl -fsS -X POST "${base}/api/import/bands" -H "Authorization: Bearer ${import_token}" \
  -H 'Content-Type: application/x-ndjson' \
  --data-binary '{"ma_id": 3549999999, "name": "<img src=x onerror=alert(1)>", "country": "Norway", "country_code": "NO", "location_text": "Oslo", "genre": "Black Metal", "status": "Active", "formed_year": 1999}' >/dev/null
# A step whose text is markup: the admin band map must show it as text (issue 31).
curl -fsS -X POST "${base}/api/import/bands" -H "Authorization: Bearer ${import_token}" \
  -H 'Content-Type: application/x-ndjson' \
  --data-binary '{"ma_id": 3549999998, "name": "Markup Step", "country": "Norway", "country_code": "NO", "location_text": "Oslo <img src=x> Bergen", "genre": "Black Metal", "status": "Active", "formed_year": 1999}' >/dev/null

log "waiting for the pipeline to map bands"
mapped=0
for _ in $(seq 1 180); do
  mapped=$(psql_super -d "${db}" -tAc "SELECT count(*) FROM band_locations WHERE geocode_status IN ('done','country_only')" 2>/dev/null || echo 0)
  [ "${mapped:-0}" -ge 50 ] && break
  sleep 1
done
echo "mapped locations: ${mapped}"
[ "${mapped:-0}" -ge 50 ] || { tail -80 "$log_file"; echo "the pipeline mapped too few bands" >&2; exit 1; }

log "browser tests (headless Chromium)"
BANDMAP_URL="$base" BANDMAP_ADMIN_USER=admin BANDMAP_ADMIN_PASSWORD="$admin_password" \
  node --test web/tests/

if [ -x scripts/schemathesis.sh ]; then
  log "schemathesis"
  BANDMAP_URL="$base" BANDMAP_ADMIN_USER=admin BANDMAP_ADMIN_PASSWORD="$admin_password" \
    BANDMAP_IMPORT_TOKEN="$import_token" scripts/schemathesis.sh
fi
log "end to end passed"
