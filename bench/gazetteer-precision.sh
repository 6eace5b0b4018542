#!/usr/bin/env bash
# Issues 13 and 30's evaluation at full size: 100,000 generated band locations naming real
# European towns (> 15,000 inhabitants, GeoNames via data/gazetteer), scored offline (parser +
# gazetteer, no provider, no LLM) under the rules before issue 13, before issue 30 and in
# force, in one run. Prints right (within 25 km) / wrong / unresolved per form, the held-out
# real set, issue 30's real-forms set per class, and every wrong row.
# Usage: bench/gazetteer-precision.sh [rows] [seed] [unresolved to list]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/fetch-gazetteer.sh" >&2
cd "$ROOT"
exec cargo run --quiet --release -p bandmap-gazetteer --example precision -- "${1:-100000}" "${2:-13}" "${3:-40}"
