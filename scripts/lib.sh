# Shared shell helpers of the setup, run and test scripts. Sourced, not executed.
set -euo pipefail

# Each line carries the seconds since the script started, so a run's log shows where its
# time went (docs/architecture.md, "The test command, timed").
log() { printf '\033[1m==> [%4ds] %s\033[0m\n' "$SECONDS" "$*" >&2; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

apt_updated=0
apt_install() {
  # Installs Debian packages that are missing; `apt-get update` runs once first.
  local missing=()
  for p in "$@"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$apt_updated" -eq 0 ]; then
    log "apt-get update"
    as_root apt-get update -qq
    apt_updated=1
  fi
  log "installing ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

pg_version() {
  if command -v pg_lsclusters >/dev/null 2>&1; then
    pg_lsclusters -h 2>/dev/null | awk 'NR==1{print $1}'
  fi
}

ensure_postgres() {
  # PostgreSQL with PostGIS, running. Installs both on a fresh Debian machine.
  if ! command -v pg_lsclusters >/dev/null 2>&1 || [ -z "$(pg_version)" ]; then
    apt_install postgresql
  fi
  local v
  v=$(pg_version)
  apt_install "postgresql-${v}-postgis-3"
  if ! pg_lsclusters -h | awk '{print $4}' | grep -q online; then
    log "starting PostgreSQL ${v}"
    as_root pg_ctlcluster --skip-systemctl-redirect "$v" main start
  fi
  for _ in $(seq 1 30); do
    pg_isready -q -h 127.0.0.1 -p 5432 && return 0
    sleep 1
  done
  echo "PostgreSQL did not become ready on 127.0.0.1:5432" >&2
  return 1
}

psql_super() {
  # Runs psql as the postgres superuser over the local socket (peer auth on stock Debian).
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- psql -v ON_ERROR_STOP=1 -q "$@"
  else
    sudo -u postgres psql -v ON_ERROR_STOP=1 -q "$@"
  fi
}

ensure_rust() {
  # A C toolchain for linking and for crates that build C (ring), then Rust itself: on a
  # fresh Debian machine rustup installs the stable toolchain (Debian's own rustc is too
  # old for this workspace; rust-version is in Cargo.toml).
  apt_install gcc libc6-dev ca-certificates curl
  [ -f "$HOME/.cargo/env" ] && source "$HOME/.cargo/env"
  if ! command -v cargo >/dev/null 2>&1; then
    log "installing Rust with rustup"
    curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs |
      sh -s -- -y --profile minimal --component rustfmt,clippy
    source "$HOME/.cargo/env"
  fi
  command -v cargo >/dev/null 2>&1 || { echo "cargo is still missing after rustup" >&2; return 1; }
}

ensure_node() {
  command -v npm >/dev/null 2>&1 || apt_install nodejs npm
}
