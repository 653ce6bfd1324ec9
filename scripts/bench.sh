#!/usr/bin/env bash
# The benchmark command (not part of the test run): builds the release page, then measures what
# a first visit downloads, first render (served and from file://), first interactive under a
# phone profile (scripts/bench/phone.mjs: brotli and gzip), script time per pointer move
# while dragging in a 40-event scenario (unthrottled and under 4× CPU throttling, 5 runs each)
# with a yardstick of what 4× throttling does to a fixed task (scripts/bench/throttle.mjs),
# simulate() throughput natively and in wasm, and the
# worst cases of tests/worst/cases.rs (each ≤ 250 ms native, ≤ 1 s in wasm, trace ≤ 10 MB) with
# the checker and narration timed on doubling numbers of debits, and the search's throughput
# (schedules per second, native, wasm, two workers) and, in the page, the time from pressing
# Search to the counterexample and the finder's throughput with one and two workers. Writes
# BENCHMARKS.md with the date, the commit and the machine.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

bash scripts/build.sh >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "[bench] sizes"
node scripts/bench/sizes.mjs --json > "$out/sizes.json"
echo "[bench] first render (served, file://)"
node scripts/bench/first-render.mjs 12 > "$out/render.json"
echo "[bench] phone profile: first interactive, brotli and gzip (5 fresh contexts each)"
node scripts/bench/phone.mjs 5 br,gzip > "$out/phone.json"
echo "[bench] drag: script time per pointer move, 5 runs unthrottled, then 5 with the CPU throttled 4×"
node scripts/bench-drag.mjs 400 --runs 5 --json > "$out/drag.json"
node scripts/bench-drag.mjs 400 --runs 5 --throttle 4 --json > "$out/drag-4x.json"
echo "[bench] simulate() throughput: native, then wasm"
# 10 clients × 1000 events: the 10 000-event cap (issue 15) is the largest scenario a run accepts.
node scripts/bench/large-scenario.mjs 1000 > "$out/large.json"
cargo run --quiet --release --example throughput -- "$out/large.json" 5 > "$out/native.json"
cargo run --quiet --release --example phases -- "$out/large.json" | tail -1 > "$out/phases.txt"
node scripts/bench/throughput-wasm.mjs "$out/large.json" 5 > "$out/wasm.json"

echo "[bench] worst cases: native, then wasm"
mkdir -p "$out/worst"
cargo run --quiet --release --example worst -- --repeats 3 --write "$out/worst" > "$out/worst-native.json"
node scripts/bench/worst-wasm.mjs "$out/worst" 3 > "$out/worst-wasm.json"

echo "[bench] find a failure: search throughput native, then wasm (one thread, two workers)"
cargo run --quiet --release --example search_bench > "$out/search-native.json"

node scripts/bench/report.mjs "$out" > BENCHMARKS.md
node scripts/bench/search.mjs "$out/search-native.json" >> BENCHMARKS.md
node scripts/bench/phone-report.mjs "$out/phone.json" "$out/sizes.json" >> BENCHMARKS.md
echo "[bench] find a failure in the page: Search to counterexample, finder throughput (1 and 2 workers)"
{ echo; node scripts/bench/find-page.mjs 10; } >> BENCHMARKS.md
# What 4× CPU throttling does to a fixed task on this host: the drag's 4× figures read against it.
echo "[bench] throttling yardstick (a synthetic task unthrottled and at 4×)"
{ printf '\n## Throttling yardstick\n\n```\n'; node scripts/bench/throttle.mjs; printf '```\n'; } >> BENCHMARKS.md
# The browser's timings the test command does not assert (they depend on the machine's load):
# main-thread tasks during a search in workers and on the main thread (a Chromium trace), the
# counterexample within 2 s, and the heavy link's click answered within 1 s at 20x throttling.
# The test command's stage times are measured by the test command itself (it prints them);
# the figures of its last measured run, with the reasons, are kept in a notes file.
{ echo; cat scripts/bench/test-command-notes.md; } >> BENCHMARKS.md
echo "[bench] timed browser checks (playwright.bench.config.mjs)"
{
  printf '\n## Timed browser checks (load %s)\n\n```\n' "$(cut -d' ' -f1 /proc/loadavg)"
  npx --no-install playwright test --config playwright.bench.config.mjs 2>&1 | grep -v '^\s*$' | tail -40 || true
  printf '```\n'
} >> BENCHMARKS.md
cat BENCHMARKS.md
