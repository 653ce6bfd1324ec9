#!/usr/bin/env bash
# Type-checks the hand-written JavaScript (www/, scripts/, tests/node/; each file opens with
# `// @ts-check`) with TypeScript's compiler, against the .d.ts files wasm-bindgen writes into
# dist/.
# Run it after scripts/build.sh has built dist/ (dist/pkg, dist/pkg-search and dist/pkg-first
# with their .d.ts). Nothing is emitted; any error fails the command.
#
#   tsconfig.json         the page's modules (www/*.js) in a window
#   tsconfig.worker.json  the search worker (www/search-worker.js and www/finder.js) in a worker
#   tsconfig.node.json    the scripts and the Node tests, under Node
set -euo pipefail
cd "$(dirname "$0")/.."

for dts in dist/pkg/fencing_playground.d.ts dist/pkg-search/search.d.ts dist/pkg-first/first.d.ts; do
  if ! [ -f "$dts" ]; then
    echo "[typecheck] $dts is missing: run scripts/build.sh first" >&2
    exit 1
  fi
done

status=0
# Every file the projects check says so itself, for editors that read no tsconfig.
for f in www/*.js scripts/*.js scripts/*.mjs scripts/bench/*.mjs; do
  if ! head -n 2 "$f" | grep -qx '// @ts-check'; then
    echo "[typecheck] $f: no // @ts-check in its first two lines" >&2
    status=1
  fi
done
for project in tsconfig.json tsconfig.worker.json tsconfig.node.json; do
  echo "[typecheck] tsc -p $project"
  npx --no-install tsc -p "$project" || status=1
done
if [ "$status" -ne 0 ]; then
  echo "[typecheck] failed" >&2
  exit 1
fi
echo "[typecheck] no errors"
