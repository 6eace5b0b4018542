#!/usr/bin/env bash
# "cargo build first, setup after": the order a Rust developer naturally takes must never
# give a binary that serves a blank map page (issue 16 item 2).
#
# 1. web/vendor/ is moved aside and bandmap is built with its files EMBEDDED (as a release
#    build does; here only bandmap-api and rust-embed are compiled without debug
#    assertions, so the other dependencies of the debug target dir are reused): the build must fail and name
#    scripts/setup-web.sh.
# 2. scripts/setup-web.sh runs (vendor files only), the same build runs again: it must
#    succeed without `cargo clean` (crates/api/build.rs tracks web/).
# 3. That binary serves the pages from its embedded copy (no WEB_DIR) and Chromium opens
#    them: every file answers, the outline map is drawn, no error is shown.
#
# Needs TEST_DATABASE_URL (PostgreSQL with PostGIS) and the web test dependencies.
source "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.."

: "${TEST_DATABASE_URL:?a PostgreSQL URL, e.g. postgres://postgres@127.0.0.1:5432/postgres}"
db=bandmap_build_order
port=${BUILD_ORDER_PORT:-18097}
base="http://127.0.0.1:${port}"
db_url="${TEST_DATABASE_URL%/*}/${db}"
# rust-embed's own crate must agree with the derive's cfg (its Embedded variant).
embed=(--config 'profile.dev.package.bandmap-api.debug-assertions=false'
  --config 'profile.dev.package.rust-embed.debug-assertions=false')
workdir=$(mktemp -d)
aside="${workdir}/vendor"
pid=
cleanup() {
  [ -n "$pid" ] && { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }
  if [ -d "$aside" ] && [ ! -d web/vendor ]; then mv "$aside" web/vendor; fi
  rm -rf "$workdir"
}
trap cleanup EXIT

log "build order: cargo build before scripts/setup-web.sh"
[ -d web/vendor ] && mv web/vendor "$aside"
if cargo build -p bandmap "${embed[@]}" >"${workdir}/build1.log" 2>&1; then
  echo "the build succeeded without web/vendor: the binary would serve a blank page" >&2
  exit 1
fi
grep -q "run scripts/setup-web.sh first" "${workdir}/build1.log" || {
  tail -30 "${workdir}/build1.log"
  echo "the failed build does not name scripts/setup-web.sh" >&2
  exit 1
}
echo "build without web/vendor refused: $(grep -m1 'map page would be blank' "${workdir}/build1.log")"

log "build order: setup after, then cargo build again"
rm -rf "$aside"
SKIP_NPM=1 scripts/setup-web.sh >/dev/null
cargo build -p bandmap "${embed[@]}"
target_dir=${CARGO_TARGET_DIR:-target}
cp "${target_dir}/debug/bandmap" "${workdir}/bandmap"

psql_super -d postgres -c "DROP DATABASE IF EXISTS ${db} WITH (FORCE)" >/dev/null
psql_super -d postgres -c "CREATE DATABASE ${db}" >/dev/null
psql_super -d "${db}" -c "CREATE EXTENSION IF NOT EXISTS postgis; CREATE EXTENSION IF NOT EXISTS pg_trgm;" >/dev/null
password="order-$(head -c 12 /dev/urandom | base64 | tr -dc 'A-Za-z0-9')"
(
  cd "$workdir"   # no WEB_DIR, no web/ beside it: the pages come from the binary
  exec env -i PATH="$PATH" HOME="$HOME" DATABASE_URL="$db_url" BIND_ADDR="127.0.0.1:${port}" \
    ADMIN_SEED_USERNAME=admin ADMIN_SEED_PASSWORD="$password" \
    ADMIN_JWT_SECRET="build-order-0123456789abcdef0123456789abcdef" RUST_LOG=warn \
    ./bandmap serve
) >"${workdir}/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 60); do
  curl -fsS "${base}/readyz" >/dev/null 2>&1 && break
  sleep 1
done
curl -fsS "${base}/readyz" >/dev/null || { tail -30 "${workdir}/serve.log"; echo "server did not start" >&2; exit 1; }
for path in /vendor/leaflet/leaflet-src.esm.js /vendor/world-atlas/countries-110m.json /favicon.svg; do
  curl -fsS -o /dev/null "${base}${path}" || { echo "embedded ${path} missing" >&2; exit 1; }
done

log "build order: the embedded pages in Chromium"
BANDMAP_URL="$base" BANDMAP_ADMIN_USER=admin BANDMAP_ADMIN_PASSWORD="$password" \
  node --test web/tests/page-complete.spec.mjs
psql_super -d postgres -c "DROP DATABASE IF EXISTS ${db} WITH (FORCE)" >/dev/null || true
log "build order passed"
