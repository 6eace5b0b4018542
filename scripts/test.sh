#!/usr/bin/env bash
# Runs every test: formatting and lints, the Rust test suites against a real PostgreSQL +
# PostGIS, then an end-to-end run of the real binary (`bandmap all` on the offline demo)
# checked by headless-Chromium browser tests and a schemathesis run of the OpenAPI document.
# Installs what it needs (PostGIS, Chromium, npm and PyPI packages) and starts PostgreSQL
# when it is down. Used as is by .ci/run.
source "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.."

ensure_rust
ensure_postgres
apt_install python3 python3-venv unzip ca-certificates chromium
ensure_node

# A superuser role with a password for the tests, so they work with trust or scram auth.
test_pass=bandmap_test_pw
psql_super -d postgres <<SQL
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'bandmap_test') THEN
    CREATE ROLE bandmap_test LOGIN SUPERUSER PASSWORD '${test_pass}';
  END IF;
END \$\$;
SQL
export TEST_DATABASE_URL="postgres://bandmap_test:${test_pass}@127.0.0.1:5432/postgres"
# Stale per-test databases of an interrupted earlier run.
psql_super -d postgres -tAc "SELECT datname FROM pg_database WHERE datname LIKE 'bandmap_test_%'" |
  while read -r db; do [ -n "$db" ] && psql_super -d postgres -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)"; done

log "offline gazetteer and front-end libraries"
scripts/fetch-gazetteer.sh
scripts/setup-web.sh
# Tests that read the fetched gazetteer fail rather than skip when it is missing.
export BANDMAP_REQUIRE_GAZETTEER=1

log "cargo fmt --check"
cargo fmt --all -- --check
log "cargo clippy --all-targets -D warnings"
cargo clippy --workspace --all-targets -- -D warnings
log "cargo deny (licences, bans, sources; advisories where reachable)"
scripts/deny.sh
log "cargo test (workspace)"
cargo test --workspace --no-fail-fast

log "end to end: bandmap all on the offline demo, browser tests, schemathesis"
scripts/e2e.sh
log "build order: cargo build before scripts/setup-web.sh never gives a blank page"
scripts/test-build-order.sh
