#!/usr/bin/env bash
# Optimises a wasm-bindgen output for size: `bash scripts/wasm-opt.sh IN.wasm OUT.wasm`
# (`WASM_OPT_LEVEL=-O3` for speed instead, as the search workers' wasm is built).
#
# wasm-opt comes from the npm `binaryen` package: Debian's binaryen is too old for current rustc
# output. The feature flags must list every proposal rustc's wasm32 target emits by default,
# or wasm-opt refuses to validate the module; it never adds instructions beyond these.
# Both release builds (scripts/build.sh, scripts/build-single.sh) use this, so they ship the same code.
#
# wasm-opt is deterministic, so its output is kept in target/wasm-opt-cache/ (in the shared target directory
# when scripts/cache.sh set one) under the hash of
# its input, level and flags: the single file's wasm (the same bytes wasm-bindgen writes for the
# served page) is optimised once, not twice.
set -euo pipefail
cd "$(dirname "$0")/.."
flags=(--enable-bulk-memory --enable-bulk-memory-opt --enable-nontrapping-float-to-int
  --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue
  --enable-call-indirect-overlong)
level=${WASM_OPT_LEVEL:--Oz}
cache=${CARGO_TARGET_DIR:-target}/wasm-opt-cache
key=$( { sha256sum < "$1"; echo "$level ${flags[*]}"; node_modules/.bin/wasm-opt --version; } | sha256sum | cut -c1-32)
if [ -f "$cache/$key.wasm" ]; then
  echo "[wasm-opt] $1: same input as an earlier build, its output reused ($cache/$key.wasm)"
  cp "$cache/$key.wasm" "$2"
  exit 0
fi
node_modules/.bin/wasm-opt "$level" "${flags[@]}" -o "$2" "$1"
mkdir -p "$cache"
cp "$2" "$cache/$key.wasm.tmp" && mv "$cache/$key.wasm.tmp" "$cache/$key.wasm"
