#!/usr/bin/env bash
# Installs every tool the project needs, idempotently: the wasm32 target, wasm-pack,
# wasm-bindgen-cli at the exact version in Cargo.lock, Debian's Chromium and chromedriver,
# Debian's redis-server, PostgreSQL 15, etcd 3.4 and ZooKeeper 3.8 for the lab, the npm
# packages from package-lock.json, and MkDocs Material from PyPI in a virtual environment under
# ~/.cache/fencing-playground/. Fast when everything is already present.
#
#   bash scripts/setup.sh        everything
#   bash scripts/setup.sh rust   only the toolchain's parts (the wasm32 target, clippy, rustfmt):
#                                the test command does this first and the rest in the
#                                background, beside the stages that need nothing else
set -euo pipefail
cd "$(dirname "$0")/.."
part=${1:-all}
case "$part" in
  all | rust) ;;
  *)
    echo "usage: bash scripts/setup.sh [rust]" >&2
    exit 2
    ;;
esac

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

# The test command lints with clippy-driver as the workspace's compiler wrapper, and checks
# formatting: both components must be there.
for component in clippy rustfmt; do
  if ! rustup component list --installed | grep -q "^$component"; then
    say "adding the $component component"
    rustup component add "$component"
  fi
done

export PATH="$HOME/.cargo/bin:$PATH"
if [ "$part" = rust ]; then
  exit 0
fi

# The two cargo installs are independent: on a bare machine they compile side by side (each is
# a long chain of crates that keeps one core busy much of the time), and their logs are shown
# only if one fails.
pids=()
logs=$(mktemp -d)
if ! command -v wasm-pack >/dev/null 2>&1; then
  # Built without optimisation (--debug): wasm-pack only reads the manifest and starts cargo,
  # wasm-bindgen and the test runner, so its own speed does not matter, and its long list of
  # dependencies compiles in about half the time. wasm-bindgen, which rewrites every wasm the
  # project builds (the test wasm is about 23 MB), keeps the release profile.
  say "installing wasm-pack (unoptimised, beside wasm-bindgen-cli)"
  cargo install wasm-pack --locked --debug >"$logs/wasm-pack.log" 2>&1 &
  pids+=("$!:wasm-pack")
fi

if ! command -v wasm-bindgen >/dev/null 2>&1 \
  || [ "$(wasm-bindgen --version | awk '{print $2}')" != "$wbg_version" ]; then
  say "installing wasm-bindgen-cli $wbg_version (about 2 minutes)"
  # Not --locked: a dependency pinned in its lock file has been yanked from the registry.
  # Unoptimised but for the crates that parse, rewrite and write a wasm (walrus, wasmparser,
  # wasm-bindgen's own passes), at opt-level 1. Measured 2026-12-07 on the 2-core machine:
  # about 181 cpu-s to compile against about 274 at the release profile's opt-level 3, and the
  # same output (compared byte for byte) in 1.1-1.5 s instead of 0.7 for the 26 MB test wasm
  # and 0.4 s instead of 0.2 for the page's (all unoptimised: 4-6 s for the test wasm).
  cargo install wasm-bindgen-cli --version "=$wbg_version" --force \
    --config 'profile.release.opt-level=0' \
    --config 'profile.release.package.walrus.opt-level=1' \
    --config 'profile.release.package.wasmparser.opt-level=1' \
    --config 'profile.release.package.wasm-bindgen-cli-support.opt-level=1' \
    --config 'profile.release.package.wasm-bindgen-wasm-interpreter.opt-level=1' \
    --config 'profile.release.package.wasm-bindgen-wasm-conventions.opt-level=1' \
    --config 'profile.release.package.id-arena.opt-level=1' \
    --config 'profile.release.package.leb128.opt-level=1' \
    >"$logs/wasm-bindgen.log" 2>&1 &
  pids+=("$!:wasm-bindgen")
fi
wait_installs() {
  local failed=0
  for p in "${pids[@]}"; do
    if ! wait "${p%%:*}"; then
      echo "[setup] cargo install ${p#*:} failed:" >&2
      tail -40 "$logs/${p#*:}.log" >&2
      failed=1
    fi
  done
  rm -rf "$logs"
  return "$failed"
}

# Debian's packages, in one apt-get run: Chromium and chromedriver for the browser tests, and
# for the lab (scripts/lab.sh) redis-server 7, PostgreSQL 15 and etcd, which the lab starts itself on
# loopback (the packages' own services are not needed).
apt_wanted=()
if ! [ -x /usr/bin/chromium ] || ! [ -x /usr/bin/chromedriver ]; then
  apt_wanted+=(chromium chromium-driver)
fi
if ! command -v redis-server >/dev/null 2>&1 || ! [ -x /usr/lib/postgresql/15/bin/initdb ]; then
  apt_wanted+=(redis-server postgresql-15)
fi
# etcd 3.4 for the lab's etcd presets (the lab starts its own three members on free loopback
# ports; a system service the package may start on 2379/2380 is left alone), and etcdctl for
# trying the Commands view's lines by hand.
if ! [ -x /usr/bin/etcd ] || ! [ -x /usr/bin/etcdctl ]; then
  apt_wanted+=(etcd-server etcd-client)
fi
# ZooKeeper 3.8 for the lab's ZooKeeper presets (the lab starts its own three members on free
# loopback ports through java and Debian's jars, /usr/share/java/zookeeper.jar with the jars its
# manifest names; a system service the package may start on 2181 is left alone). It needs a
# Java runtime: the headless one when none is installed (about 7 s with Java present).
if ! [ -f /usr/share/java/zookeeper.jar ] || ! [ -f /usr/share/java/slf4j-simple.jar ]; then
  apt_wanted+=(zookeeper)
fi
if ! command -v java >/dev/null 2>&1; then
  apt_wanted+=(default-jre-headless)
fi
# MkDocs Material, for the e2e test that builds a real MkDocs site around the documented
# snippets (tests/e2e/mkdocs.test.mjs), goes into a virtual environment of its own (below);
# Debian's python3 makes one only with python3-venv.
if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
  apt_wanted+=(python3-venv)
fi
if [ "${#apt_wanted[@]}" -gt 0 ]; then
  say "installing from Debian: ${apt_wanted[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${apt_wanted[@]}" >/dev/null
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

# MkDocs Material from PyPI at the pinned version, in a virtual environment outside the checkout
# (tests/e2e/mkdocs-site.mjs runs its mkdocs); made again only when the pin changes.
mkdocs_pin=mkdocs-material==9.8.2
mkdocs_venv=${FP_MKDOCS_VENV:-$HOME/.cache/fencing-playground/mkdocs}
if ! [ -x "$mkdocs_venv/bin/mkdocs" ] || [ "$(cat "$mkdocs_venv/.setup-stamp" 2>/dev/null)" != "$mkdocs_pin" ]; then
  say "installing $mkdocs_pin into $mkdocs_venv"
  rm -rf "$mkdocs_venv"
  python3 -m venv "$mkdocs_venv"
  "$mkdocs_venv/bin/pip" install --quiet --disable-pip-version-check "$mkdocs_pin"
  echo "$mkdocs_pin" > "$mkdocs_venv/.setup-stamp"
fi

wait_installs
say "tools ready (wasm-bindgen $wbg_version)"
