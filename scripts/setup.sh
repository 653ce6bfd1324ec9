#!/usr/bin/env bash
# Installs every tool the project needs, idempotently: the wasm32 target, wasm-pack,
# wasm-bindgen-cli at the exact version in Cargo.lock, Debian's Chromium and chromedriver,
# Debian's redis-server and PostgreSQL 15 for the lab, and the npm packages from
# package-lock.json. Fast when everything is already present.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '[setup] %s\n' "$*"; }

# The wasm-bindgen crate and its CLI must match exactly, or the generated glue is refused.
wbg_version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if [ -z "$wbg_version" ]; then
  echo "[setup] could not read the wasm-bindgen version from Cargo.lock" >&2
  exit 1
fi

# rust-toolchain.toml names the target; this makes sure it is installed for the active toolchain.
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

export PATH="$HOME/.cargo/bin:$PATH"

if ! command -v wasm-pack >/dev/null 2>&1; then
  say "installing wasm-pack (about 3 minutes)"
  cargo install wasm-pack --locked
fi

if ! command -v wasm-bindgen >/dev/null 2>&1 \
  || [ "$(wasm-bindgen --version | awk '{print $2}')" != "$wbg_version" ]; then
  say "installing wasm-bindgen-cli $wbg_version (about 3 minutes)"
  # Not --locked: a dependency pinned in its lock file has been yanked from the registry.
  cargo install wasm-bindgen-cli --version "=$wbg_version" --force
fi

if ! [ -x /usr/bin/chromium ] || ! [ -x /usr/bin/chromedriver ]; then
  say "installing Chromium and chromedriver from Debian"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium chromium-driver >/dev/null
fi

# The lab (scripts/lab.sh) replays the presets against real redis-server 7 and PostgreSQL 15.
# The lab starts its own servers on loopback; the packages' own services are not needed.
if ! command -v redis-server >/dev/null 2>&1 || ! [ -x /usr/lib/postgresql/15/bin/initdb ]; then
  say "installing redis-server and PostgreSQL 15 from Debian"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq redis-server postgresql-15 >/dev/null
fi

# npm packages: reinstall only when the lock file changed since the last install.
# @playwright/test 1.65.1 has no install script and downloads no browser (the e2e tests use
# Debian's Chromium); the variable keeps it that way should a later version add one.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
if [ -f package-lock.json ]; then
  stamp=node_modules/.setup-stamp
  want=$(sha256sum package-lock.json | awk '{print $1}')
  if ! [ -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    say "installing npm packages from package-lock.json"
    npm ci --no-audit --no-fund --loglevel=error
    echo "$want" > "$stamp"
  fi
fi

say "tools ready (wasm-bindgen $wbg_version)"
