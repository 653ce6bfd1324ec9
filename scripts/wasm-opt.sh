#!/usr/bin/env bash
# Optimises a wasm-bindgen output for size: `bash scripts/wasm-opt.sh IN.wasm OUT.wasm`
# (`WASM_OPT_LEVEL=-O3` for speed instead, as the search workers' wasm is built).
#
# wasm-opt comes from the npm `binaryen` package: Debian's binaryen is too old for current rustc
# output. The feature flags must list every proposal rustc's wasm32 target emits by default,
# or wasm-opt refuses to validate the module; it never adds instructions beyond these.
# Both release builds (scripts/build.sh, scripts/build-single.sh) use this, so they ship the same code.
set -euo pipefail
cd "$(dirname "$0")/.."
node_modules/.bin/wasm-opt "${WASM_OPT_LEVEL:--Oz}" \
  --enable-bulk-memory --enable-bulk-memory-opt --enable-nontrapping-float-to-int \
  --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue \
  --enable-call-indirect-overlong \
  -o "$2" "$1"
