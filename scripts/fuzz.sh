#!/usr/bin/env bash
# The fuzz command: bash scripts/fuzz.sh [seconds=60]
# Replays every saved reproducer in tests/fuzz/corpus/, then fuzzes for the given seconds, half
# natively (tests/fuzz/: the scenario reader, the link decoder, the engine and its checker, in
# the test profile: overflow checks and the engine's debug assertions on, and no build of its
# own, since `cargo test` has built it) and half under Node, side by side, against the release package (tests/fuzz/node.mjs: the JS
# API and the LeaseLock/FencedAccount classes). Each half reports inputs per second and saves a
# reproducer for every failure into tests/fuzz/corpus/ (commit it with the fix). A run slower
# than 250 ms natively or 1 s in wasm (best of three) is saved into tests/fuzz/slow/ and
# reported, never failed: timing depends on the machine, so it is a finding for the engine's
# benchmark; every fuzz run times the saved ones again. FUZZ_SEED sets
# the seed (default: a new one, printed); the same seed replays the same inputs. Builds dist/
# first when it is missing (FUZZ_BUILD=1 rebuilds it).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

seconds=${1:-60}
seed=${FUZZ_SEED:-$(( (RANDOM << 15) | RANDOM ))}
native=$(( seconds / 2 ))
node_seconds=$(( seconds - native ))
echo "[fuzz] seed $seed: ${native} s native, ${node_seconds} s under Node"

if [ "${FUZZ_BUILD:-0}" = 1 ] || ! [ -f dist/pkg/fencing_playground_bg.wasm ]; then
  bash scripts/build.sh >/dev/null
fi

# The two halves are independent and each keeps one core busy: they run side by side, or one after the other with FUZZ_SERIAL=1 (the
# native build first, so the compile does not eat into the Node half), and each one's output
# is shown whole once both are done.
status=0
# (--workspace: the same package selection as the test command's other native builds, so the
# playground's library is not rebuilt with other features; scripts/test.sh says why.)
cargo test --quiet --workspace --test fuzz --no-run
logs=$(mktemp -d)
echo "[fuzz] native: replay tests/fuzz/corpus/, then ${native} s (cargo test --test fuzz: overflow checks and debug assertions on), beside"
echo "[fuzz] node: replay tests/fuzz/corpus/, then ${node_seconds} s (node tests/fuzz/node.mjs)"
FUZZ_SECONDS=$native FUZZ_SEED=$seed cargo test --quiet --workspace --test fuzz -- --nocapture >"$logs/native" 2>&1 &
native_pid=$!
# FUZZ_SERIAL=1 (one core, as the test command gives it beside the lab): the Node half starts
# when the native half ends, so each still has a core to itself for its seconds.
if [ "${FUZZ_SERIAL:-0}" = 1 ]; then wait "$native_pid" || status=1; fi
node tests/fuzz/node.mjs "$node_seconds" "$seed" >"$logs/node" 2>&1 &
node_pid=$!
if [ "${FUZZ_SERIAL:-0}" != 1 ]; then wait "$native_pid" || status=1; fi
wait "$node_pid" || status=1
echo "[fuzz] native:"; cat "$logs/native"
echo "[fuzz] node:"; cat "$logs/node"
rm -rf "$logs"
if [ "$status" -ne 0 ]; then
  echo "[fuzz] FAILED: see the reproducers listed above (tests/fuzz/corpus/); replay with FUZZ_SEED=$seed" >&2
fi
exit "$status"
