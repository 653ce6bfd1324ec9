#!/usr/bin/env bash
# Builds the release page into dist/: index.html, www/ and pkg/ (wasm-bindgen glue + optimised wasm).
# Every path in the page is relative, so dist/ can be served from any sub-path.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"

crate=fencing_playground
# The target directory: the checkout's own, or the shared one scripts/cache.sh exports.
target=${CARGO_TARGET_DIR:-target}
wasm_in="$target/wasm32-unknown-unknown/release/$crate.wasm"
# Each of the three builds' raw wasm is kept here under its own name (scripts/build-single.sh
# reads the page's and the search's).
raw=$target/wasm-raw
mkdir -p "$raw"

# The page's cargo build runs first, alone: the variants below then find its dependencies
# linked into their own directories (scripts/seed-variant.mjs) and compile only the crate.
cargo_page() {
  echo "[build] cargo build (release, wasm32)"
  cargo build --release --target wasm32-unknown-unknown --lib
  cp "$wasm_in" "$raw/page.wasm"
}

build_page() {

  echo "[build] wasm-bindgen --target web"
  wasm-bindgen --target web --typescript --out-dir dist/pkg --out-name "$crate" "$raw/page.wasm"

  # Methods called on a freed object (or re-entered from now()) must fail in JavaScript, before
  # they reach the wasm module: see scripts/class-guard.js.
  echo "[build] guard LeaseLock and FencedAccount (scripts/class-guard.js)"
  { cat scripts/class-guard.js; echo 'fpGuardClasses({ LeaseLock, FencedAccount });'; } >> "dist/pkg/${crate}.js"
  # The lanes' patcher sends a frame's writes to the DOM in one call to fpPatch, which the wasm
  # imports by that name from the glue's scope (src/ui/lanes/render/batch.rs).
  echo "[build] append the DOM patcher (scripts/dom-patch.js) to the page's glue"
  cat scripts/dom-patch.js >> "dist/pkg/${crate}.js"

  echo "[build] wasm-opt -Oz"
  bash scripts/wasm-opt.sh "dist/pkg/${crate}_bg.wasm" "dist/pkg/${crate}_bg.wasm.opt"
  mv "dist/pkg/${crate}_bg.wasm.opt" "dist/pkg/${crate}_bg.wasm"
  # The imports' names (function name + hash each) become one or two letters, in the wasm and the
  # glue together: 10 KB raw, 3.4 KB brotli off the wasm and 2.4 KB brotli off the glue.
  echo "[build] short import names (scripts/short-imports.mjs)"
  node scripts/short-imports.mjs "dist/pkg/${crate}.js" "dist/pkg/${crate}_bg.wasm"
}

# "Find a failure" runs in workers that load a wasm of their own: the core and the search API
# without the front end (feature search-worker), fetched only when the reader opens the panel,
# so the page's first download does not carry it. The search is optimised for speed, not size
# like the page: it is loaded late, and its throughput is what the reader waits on. The crate
# alone is built at opt-level 3 (a profile override for this package; the fat LTO that makes the
# wasm runs at the crate's level). wasm-opt -O3 then optimises the whole module for speed.
#
# Each variant builds in a target directory of its own under the main one: cargo keeps one
# build of this crate's library per target directory whatever its features, so in one directory
# the three builds replaced each other and every run compiled all three again (about 80 s on 2
# cores), also when nothing had changed. Apart, each would compile every dependency again (Yew
# too: the features leave it out of the code, not out of the dependencies), so before they
# start the page's dependencies are linked into their directories (scripts/seed-variant.mjs):
# from a bare machine each then compiles only the crate (measured 2026-12-08: the first stage's
# build 88 cpu-s from an empty directory, 20 s seeded), and nothing on a run where nothing changed.
build_search() {
  echo "[build] cargo build (release, the crate at opt-level 3, wasm32, feature search-worker) for the search workers"
  cargo build --release --config 'profile.release.package.fencing-playground.opt-level=3' \
    --target wasm32-unknown-unknown --lib --features search-worker --target-dir "$target/variants/search"
  cp "$target/variants/search/wasm32-unknown-unknown/release/$crate.wasm" "$raw/search.wasm"
  wasm-bindgen --target web --typescript --out-dir dist/pkg-search --out-name search "$raw/search.wasm"
  WASM_OPT_LEVEL=-O3 bash scripts/wasm-opt.sh dist/pkg-search/search_bg.wasm dist/pkg-search/search_bg.wasm.opt
  mv dist/pkg-search/search_bg.wasm.opt dist/pkg-search/search_bg.wasm
  rm -f dist/pkg-search/.gitignore
}

# The first stage (src/first/, www/first.js): the default scenario's verdict and timeline,
# drawn without Yew, which a first visit downloads first and can drag while the full page
# loads. Same profile as the page, in a target directory of its own (see the search's above).
build_first() {
  echo "[build] cargo build (release, wasm32, feature first-stage) for the first stage"
  cargo build --release --target wasm32-unknown-unknown --lib --features first-stage \
    --target-dir "$target/variants/first"
  cp "$target/variants/first/wasm32-unknown-unknown/release/$crate.wasm" "$raw/first.wasm"
  wasm-bindgen --target web --typescript --out-dir dist/pkg-first --out-name first "$raw/first.wasm"
  cat scripts/dom-patch.js >> dist/pkg-first/first.js
  bash scripts/wasm-opt.sh dist/pkg-first/first_bg.wasm dist/pkg-first/first_bg.wasm.opt
  mv dist/pkg-first/first_bg.wasm.opt dist/pkg-first/first_bg.wasm
  node scripts/short-imports.mjs dist/pkg-first/first.js dist/pkg-first/first_bg.wasm
  rm -f dist/pkg-first/.gitignore
}

# The page's cargo build first (it compiles the dependencies all three share), then its steps
# after cargo and the two variants side by side, each in its own target directory (above), each
# writing its own folder of dist/: most of each is one core (a fat-LTO link, wasm-opt), so one
# after the other they left a core idle. Each one's output is shown whole when all have ended,
# and a failed one's first.
rm -rf dist
mkdir -p dist
cargo_page
for variant in search first; do
  node scripts/seed-variant.mjs "$target" "$target/variants/$variant"
done
logs=$(mktemp -d)
pids=()
for part in page search first; do
  "build_$part" >"$logs/$part" 2>&1 &
  pids+=("$!:$part")
done
failed=
for p in "${pids[@]}"; do
  if ! wait "${p%%:*}"; then failed+=" ${p#*:}"; fi
done
for part in page search first; do cat "$logs/$part"; done
rm -rf "$logs"
if [ -n "$failed" ]; then
  echo "[build] failed:$failed (its output above)" >&2
  exit 1
fi

cp index.html dist/index.html
cp -R www dist/www
# wasm-bindgen writes a .gitignore of '*' into pkg/; it is noise in a deployable folder.
rm -f dist/pkg/.gitignore

# A first visit downloads the glue and the boot script: minified, they weigh about a third less
# (brotli). Exports and strings are kept, so the wasm's imports and the API are unchanged.
# The embed's own modules are minified too: a post with playgrounds loads them before any wasm.
echo "[build] minify the JS a first visit loads, and the embed's"
node scripts/minify.mjs "dist/pkg/${crate}.js" dist/pkg-first/first.js dist/www/first.js dist/www/main.js dist/pkg-search/search.js dist/www/finder.js dist/www/search-worker.js \
  dist/www/embed.js dist/www/embed-frame.js dist/www/host-theme.js dist/www/embed-heights.js dist/www/embed-host.js

echo "[build] what a first visit downloads (bytes): raw / gzip -9 / brotli -q 11"
node scripts/bench/sizes.mjs
bash scripts/build-single.sh
# Static hosts send brotli or gzip to browsers that accept it: the build writes both beside each
# file (FILE.br, FILE.gz), for hosts that serve precompressed files and for scripts/serve.mjs.
node scripts/precompress.mjs dist
echo "[build] done: dist/ (serve it with: node scripts/serve.mjs)"
