#!/usr/bin/env bash
# Fuzzes every documented endpoint of a RUNNING server with schemathesis (from PyPI, in a
# git-ignored local venv), logged in as an admin: no 5xx, and every response must match the
# schema of /api/openapi.json.
#
#   BANDMAP_URL=http://127.0.0.1:18080 BANDMAP_ADMIN_USER=admin BANDMAP_ADMIN_PASSWORD=... \
#     scripts/schemathesis.sh [extra schemathesis options]
#
# Excluded: POST /admin/auth/login (generated wrong passwords would trigger the lockout
# and lock the fuzzer out) and POST /admin/auth/logout (ends the session). Both are covered
# by the Rust integration tests. Bounded: SCHEMATHESIS_MAX_EXAMPLES (default 25) per
# operation and SCHEMATHESIS_MAX_TIME seconds (default 180) for the whole run.
# Body-less writes (bulk actions, cancels) get `Content-Type: application/json` so they
# pass the CSRF check and really run.
# scripts/schemathesis.toml draws half of the path ids of two operations from rows the
# end-to-end run holds (otherwise they only ever answer 404).
# With BANDMAP_IMPORT_TOKEN set, the import endpoint gets the bearer token too, so its
# bodies are really imported (otherwise it is only exercised as a 401).
# Writes run for real: point it at a throw-away database.
set -euo pipefail

: "${BANDMAP_URL:?set BANDMAP_URL, e.g. http://127.0.0.1:18080}"
: "${BANDMAP_ADMIN_USER:?set BANDMAP_ADMIN_USER}"
: "${BANDMAP_ADMIN_PASSWORD:?set BANDMAP_ADMIN_PASSWORD}"
MAX_EXAMPLES="${SCHEMATHESIS_MAX_EXAMPLES:-25}"
MAX_TIME="${SCHEMATHESIS_MAX_TIME:-180}"
VERSION="${SCHEMATHESIS_VERSION:-4.32.5}"

root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.venv-schemathesis"
if [[ ! -x "$venv/bin/schemathesis" ]]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet "schemathesis==$VERSION"
fi

# Log in; keep only the cookie pair (never printed).
body="$(python3 -c 'import json,os; print(json.dumps({"username": os.environ["BANDMAP_ADMIN_USER"], "password": os.environ["BANDMAP_ADMIN_PASSWORD"]}))')"
cookie="$(curl -fsS -o /dev/null -D - -H 'Content-Type: application/json' \
    --data "$body" "$BANDMAP_URL/admin/auth/login" \
    | tr -d '\r' | sed -n 's/^[Ss]et-[Cc]ookie: \(bandmap_session=[^;]*\).*/\1/p' | head -n1)"
if [[ -z "$cookie" ]]; then
    echo "schemathesis.sh: login failed (no bandmap_session cookie)" >&2
    exit 1
fi

extra_headers=()
if [[ -n "${BANDMAP_IMPORT_TOKEN:-}" ]]; then
    extra_headers+=(--header "Authorization: Bearer $BANDMAP_IMPORT_TOKEN")
fi

# Run from inside the git-ignored venv: schemathesis keeps a `.schemathesis/` cache in its
# working directory.
cd "$venv"
exec "$venv/bin/schemathesis" --config-file "$root/scripts/schemathesis.toml" \
    run "$BANDMAP_URL/api/openapi.json" \
    --header "Cookie: $cookie" \
    --header "Content-Type: application/json" \
    "${extra_headers[@]}" \
    --checks not_a_server_error,response_schema_conformance \
    --exclude-path /admin/auth/login \
    --exclude-path /admin/auth/logout \
    --max-examples "$MAX_EXAMPLES" \
    --max-time "$MAX_TIME" \
    --request-timeout 15 \
    --workers 1 \
    --generation-database none \
    "$@"
