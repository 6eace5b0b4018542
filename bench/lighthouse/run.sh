#!/usr/bin/env bash
# Lighthouse audits of the public pages (issue 28; figures in docs/frontend.md, "Lighthouse"):
# `bandmap all` on the offline demo (a fresh database, the recorded upstream, no network to
# outside hosts: map tiles are unreachable, as for a visitor whose tile server is down), then
# Lighthouse 12.2.3 (npm, pinned: 13 needs a newer Node) with Debian's Chromium on each page,
# phone (Lighthouse's default mobile profile, throttled) and desktop (--preset=desktop).
# Prints one line per page and profile: the four category scores and total blocking time.
#
# Usage: bench/lighthouse/run.sh [PATH ...]   (default: / and the first town page of
#        /sitemap/towns-0.xml, when there is one). Env: BIN (default: target/release/bandmap when
#        built, else target/debug/bandmap), PORT (18190), BENCH_DB (bandmap_bench_lighthouse),
#        RUNS (1: runs per page and profile; the median performance score is printed).
# Needs: PostgreSQL+PostGIS on 127.0.0.1:5432 (user postgres, trust), node/npm, chromium,
#        data/gazetteer (scripts/fetch-gazetteer.sh) and web/vendor (scripts/setup-web.sh).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/bench/lighthouse"
OUT="$HERE/out"
PORT=${PORT:-18190}
DB=${BENCH_DB:-bandmap_bench_lighthouse}
RUNS=${RUNS:-1}
PG="postgres://postgres@127.0.0.1:5432"
BASE="http://127.0.0.1:$PORT"
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
mkdir -p "$OUT"
cd "$ROOT"

if [ -z "${BIN:-}" ]; then
  if [ -x "$TARGET/release/bandmap" ]; then BIN="$TARGET/release/bandmap"; else
    cargo build -q -p bandmap
    BIN="$TARGET/debug/bandmap"
  fi
fi
command -v chromium >/dev/null || { echo "chromium missing: apt-get install -y chromium" >&2; exit 1; }
(cd "$HERE" && [ -x node_modules/.bin/lighthouse ] || npm ci --no-audit --no-fund -s)
if curl -s -o /dev/null "$BASE/healthz"; then echo "port $PORT is in use: set PORT" >&2; exit 1; fi

echo "== database $DB, bandmap all on the offline demo ($BIN)"
psql "$PG/postgres" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "CREATE DATABASE $DB" >/dev/null
(
  cd "$OUT"
  exec env -i PATH="$PATH" HOME="$HOME" \
    DATABASE_URL="$PG/$DB" BIND_ADDR="127.0.0.1:$PORT" \
    UPSTREAM_MODE="recorded:$ROOT/demo/upstream" LLM_MODE="recorded:$ROOT/demo/llm" \
    GAZETTEER_PATH="$ROOT/data/gazetteer/europe.tsv" WEB_DIR="$ROOT/web" GEOCODER_PROVIDER=none \
    CRAWLER_DELAY_MS=0 CRAWLER_COUNTRY_PAUSE_MS=0 RUST_LOG=warn \
    ADMIN_JWT_SECRET="lighthouse-0123456789abcdef0123456789abcdef" \
    "$BIN" all
) >"$OUT/bandmap.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do curl -fs "$BASE/readyz" >/dev/null 2>&1 && break; sleep 1; done
curl -fs "$BASE/readyz" >/dev/null || { tail -30 "$OUT/bandmap.log"; echo "server did not start" >&2; exit 1; }
# The whole demo on the map (its 308 European bands; a few stay unplaced).
for _ in $(seq 1 240); do
  mapped=$(psql "$PG/$DB" -tAc "SELECT count(*) FROM band_locations WHERE geocode_status IN ('done','country_only')" 2>/dev/null || echo 0)
  [ "${mapped:-0}" -ge 300 ] && break
  sleep 1
done
echo "mapped locations: $mapped"

PAGES=("$@")
if [ ${#PAGES[@]} -eq 0 ]; then
  PAGES=(/)
  # sitemap.xml is an index: the first towns file lists the town pages.
  town=$(curl -fs "$BASE/sitemap/towns-0.xml" 2>/dev/null | grep -o '<loc>[^<]*/town/[^<]*</loc>' | head -1 | sed -e 's|<loc>||' -e 's|</loc>||' -e 's|^https\?://[^/]*||' || true)
  [ -n "$town" ] && PAGES+=("$town")
fi

audit() { # page profile run → json
  local page=$1 profile=$2 run=$3 name
  name=$(printf '%s' "$page" | tr -c 'A-Za-z0-9' '_')
  local out="$OUT/${name}-${profile}-${run}.json"
  local preset=()
  [ "$profile" = desktop ] && preset=(--preset=desktop)
  CHROME_PATH=$(command -v chromium) "$HERE/node_modules/.bin/lighthouse" "$BASE$page" \
    "${preset[@]}" --quiet --output=json --output-path="$out" \
    --only-categories=performance,accessibility,best-practices,seo \
    --chrome-flags="--headless=new --no-sandbox --disable-gpu" >/dev/null 2>"$OUT/lighthouse.err" || {
      tail -5 "$OUT/lighthouse.err" >&2; return 1; }
  echo "$out"
}

echo "== lighthouse 12.2.3, $RUNS run(s) per page and profile (load: $(cut -d' ' -f1-3 /proc/loadavg))"
printf '%-40s %-8s %5s %5s %5s %5s %8s\n' page profile perf a11y bp seo "TBT ms"
for page in "${PAGES[@]}"; do
  for profile in mobile desktop; do
    files=()
    for run in $(seq 1 "$RUNS"); do files+=("$(audit "$page" "$profile" "$run")"); done
    node -e '
      const fs = require("fs");
      const rs = process.argv.slice(3).map((f) => JSON.parse(fs.readFileSync(f, "utf8")));
      rs.sort((a, b) => a.categories.performance.score - b.categories.performance.score);
      const r = rs[Math.floor(rs.length / 2)];
      const s = (k) => Math.round(r.categories[k].score * 100);
      const tbt = Math.round(r.audits["total-blocking-time"].numericValue);
      console.log(process.argv[1].padEnd(40), process.argv[2].padEnd(8),
        String(s("performance")).padStart(5), String(s("accessibility")).padStart(5),
        String(s("best-practices")).padStart(5), String(s("seo")).padStart(5), String(tbt).padStart(8));
      const failed = Object.values(r.audits).filter((a) => a.score !== null && a.score < 1 &&
        ["accessibility", "best-practices", "seo"].some((c) => r.categories[c].auditRefs.some((x) => x.id === a.id && x.weight > 0)));
      for (const a of failed) console.log("    below 100:", a.id, "-", a.title);
    ' "$page" "$profile" "${files[@]}"
  done
done
echo "reports: $OUT"
