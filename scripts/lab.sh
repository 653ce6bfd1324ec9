#!/usr/bin/env bash
# Replays the presets against real servers: redis-server 7 and PostgreSQL 15 from Debian, started
# by the lab itself on free loopback ports in a temporary directory. Prints one line per preset
# and fails on a mismatch. `--write` regenerates docs/conformance.md and src/sim/conformance.rs
# (the page's "Reproduced" marks); name presets to run only those; `--scale N` sets the real
# milliseconds per simulated one (20 by default).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
cargo build -q -p fencing-lab -p fencing-lab-clockshim
exec "${CARGO_TARGET_DIR:-target}/debug/fencing-lab" "$@"
