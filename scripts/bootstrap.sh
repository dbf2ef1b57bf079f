#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks to run or test docgen, then builds.
# Sourced by scripts/start.sh and scripts/test.sh; safe to run again (each step checks first).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

say() { printf '\033[1m[docgen]\033[0m %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }
is_root() { [ "$(id -u)" -eq 0 ]; }

# System packages: LibreOffice renders PDFs; the fonts give every script real glyphs;
# poppler-utils: pdftoppm renders template previews in the render worker; pdftotext lets the tests read PDFs;
# libjemalloc2 is the allocator warm LibreOffice instances run on (a fifth less of their CPU);
# chromium runs the web UI browser tests; chromium-headless-shell prints HTML templates' PDFs;
# curl and jq run examples/curl-walkthrough.sh;
# strace lets the storage test see the local driver's fsyncs in order; zbar-tools (zbarimg)
# decodes the QR codes and barcodes the expression tests draw; qpdf encrypts finished PDFs;
# libnss3-tools (certutil) lets the signing tests make an NSS database that trusts their CA for pdfsig.
SYSTEM_PACKAGES=(libreoffice-writer-nogui python3-uno libjemalloc2 fonts-liberation fonts-crosextra-carlito
  fonts-crosextra-caladea fonts-dejavu-core fonts-noto-core fonts-noto-cjk poppler-utils
  chromium chromium-headless-shell curl jq strace zbar-tools qpdf libnss3-tools)

APT_UPDATED=0
apt_install() {
  if [ "$APT_UPDATED" -eq 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    APT_UPDATED=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

missing_packages() {
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  echo "${missing[@]:-}"
}

ensure_node() {
  command -v node >/dev/null || die "Node.js 20.19+ is required: https://nodejs.org/"
  node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)' ||
    die "Node.js 20.19+ is required (found $(node -v))."
}

ensure_pnpm() {
  if ! command -v pnpm >/dev/null || [ "$(pnpm -v | cut -d. -f1)" -lt 10 ]; then
    say "installing pnpm 10"
    npm install -g pnpm@10 >/dev/null 2>&1 || die "Could not install pnpm; run: npm install -g pnpm@10"
  fi
}

ensure_system_packages() {
  local missing
  missing=$(missing_packages "${SYSTEM_PACKAGES[@]}")
  [ -z "$missing" ] && return 0
  if is_root && command -v apt-get >/dev/null; then
    say "installing system packages: $missing"
    # shellcheck disable=SC2086
    apt_install $missing
    # LibreOffice's very first starts after an install can abort while it initialises
    # itself; one throwaway start here means the converter pool never sees that.
    local profile
    profile=$(mktemp -d)
    timeout 120 soffice --headless --norestore --terminate_after_init "-env:UserInstallation=file://$profile" >/dev/null 2>&1 || true
    rm -rf "$profile"
  else
    say "missing system packages (PDF rendering and fonts need them): $missing"
    say "install them with: sudo apt-get install --no-install-recommends $missing"
  fi
}

# host and port of a URL, e.g. "127.0.0.1 5432"
url_host_port() {
  node -e 'const u = new URL(process.argv[1]); console.log(u.hostname.replace(/^\[|\]$/g, ""), u.port || process.argv[2])' "$1" "$2"
}

reachable() { timeout 2 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null; }

is_local() { [[ "$1" == "127.0.0.1" || "$1" == "localhost" || "$1" == "::1" ]]; }

ensure_redis() {
  local url="${REDIS_URL:-redis://127.0.0.1:6379}" host port
  read -r host port < <(url_host_port "$url" 6379)
  reachable "$host" "$port" && return 0
  if is_root && is_local "$host"; then
    command -v redis-server >/dev/null || apt_install redis-server
    say "starting Redis on port $port"
    mkdir -p /var/lib/redis /var/log/redis
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port "$port" --save "" --appendonly no \
      --dir /var/lib/redis --logfile /var/log/redis/docgen.log
    for _ in $(seq 50); do reachable "$host" "$port" && return 0; sleep 0.1; done
  fi
  die "Redis is not reachable at $url. Install and start it (sudo apt-get install redis-server) or run: docker compose up -d redis"
}

ensure_postgres() {
  local url="${DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/docgen}" host port
  read -r host port < <(url_host_port "$url" 5432)
  reachable "$host" "$port" && return 0
  if is_root && is_local "$host"; then
    if ! ls /etc/postgresql/*/main >/dev/null 2>&1; then
      say "installing PostgreSQL"
      apt_install postgresql
      # A fresh local cluster: let local TCP connections in without a password, like the
      # default DATABASE_URL expects. Only done for a cluster this script installed.
      local hba
      hba=$(ls /etc/postgresql/*/main/pg_hba.conf | head -n 1)
      sed -i '1i host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust' "$hba"
      say "PostgreSQL installed with trust authentication for 127.0.0.1 (development only)"
    fi
    say "starting PostgreSQL"
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start || true
    for _ in $(seq 100); do reachable "$host" "$port" && return 0; sleep 0.1; done
  fi
  die "PostgreSQL is not reachable at $url. Install and start it (sudo apt-get install postgresql) or run: docker compose up -d postgres"
}

ensure_dependencies() {
  say "installing dependencies"
  pnpm install --frozen-lockfile --reporter=silent
}

build() {
  say "building"
  pnpm exec turbo run build --output-logs=errors-only >&2
}

ensure_node
ensure_pnpm
ensure_system_packages
ensure_redis
ensure_postgres
ensure_dependencies
build
