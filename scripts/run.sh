#!/usr/bin/env bash
# The quick start: set everything up (idempotent) and run all services in one process
# on http://127.0.0.1:8080 (map at /, admin console at /admin/).
source "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.."
scripts/setup.sh
log "starting bandmap all on http://127.0.0.1:8080 (Ctrl-C to stop)"
exec target/release/bandmap all
