#!/usr/bin/env bash
# Builds the release page into dist/ and serves it on http://127.0.0.1:${PORT:-8080}/ (Ctrl-C stops).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
exec node scripts/serve.mjs "${PORT:-8080}"
