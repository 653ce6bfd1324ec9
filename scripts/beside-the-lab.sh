#!/usr/bin/env bash
# The test command's checks that measure no time, run while the lab runs (scripts/test.sh starts
# this in the background on core 0, and gives it both cores when the lab ends). Each step prints
# its own wall time; they stop at the first failure. Their order: what the browser tests need
# first (the release build), then what has a clock of its own (wasm-pack's Chromium and its
# driver's timeouts, the fuzz's seconds, the embeds' frames) while the lab still leaves it a
# core (beside the browser tests, on a loaded machine, wasm-pack's driver once timed out waiting
# for its page, 30 s), then the rest, heaviest first, so what is left when the lab ends (it
# then runs beside the browser tests) is the small checks. (Tried on 2026-12-07: the fuzz's two
# halves side by side and the native tests beside the later steps, at nice 19 on this core or
# on the other; on the other core the lab's presets took 100 s instead of 73, and on this one
# the native tests ran on into the browser tests: no gain.)
# Run by hand it needs what the test command has done before it: the installs and the builds.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

steps_file=${FENCING_STEPS_FILE:-/dev/null}
step_name=
step_start=$SECONDS
step() {
  end_step
  step_name=$1
  step_start=$SECONDS
  printf '\n-------------------- %s --------------------\n' "$1"
}
end_step() {
  if [ -n "$step_name" ]; then
    printf '%5ss          %s\n' $((SECONDS - step_start)) "  beside the lab: $step_name" >>"$steps_file"
  fi
}

# Three release wasm builds (scripts/build.sh): the page's, then the search workers' and the
# first stage's side by side on the dependencies it compiled, on this job's core at nice 10 (the lab's clients are at 0, its servers
# at -10). Not on both cores: a cold compile on the lab's other core, even at nice 19, made its
# presets late (2026-12-07, d5ede28: 37 runs retried, redlock-cas judged a mismatch 1.4 s
# late). (Until that evening the step asked taskset for "0-$(($(nproc) - 1))" cores from inside
# this job, where nproc counts 1: it always ran on core 0, whatever its comment said.)
# Not through clippy-driver, which the test command makes the compiler of its debug builds: it
# turns MIR optimisations off, and the release wasm must be the one the page ships.
step "release build (scripts/build.sh, at nice 10)"
nice -n 10 env -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS bash scripts/build.sh

# wasm-bindgen-test in headless Chromium, with Debian's chromedriver (wasm-pack must not download
# one). The runner merges webdriver.json (crate root) into the capabilities: it pins --no-sandbox,
# needed as root, and turns off Chromium's background network traffic.
# The runner's session limit (WASM_BINDGEN_TEST_TIMEOUT, 20 s by default, counted from before
# the debug wasm is compiled) is a hang guard here, not a time assertion: 5 minutes. With the
# search API, as the test command built (and linted) the tests.
step "wasm-pack test (headless Chromium, feature search-api)"
WASM_BINDGEN_TEST_TIMEOUT=300 wasm-pack test --headless --chrome --chromedriver /usr/bin/chromedriver -- --features search-api

# The saved reproducers are replayed, then one seeded minute of fuzzing, half native (the test
# profile's build of tests/fuzz, built by the test command: overflow checks and debug assertions
# on) and half under Node against the package just built, one after the other: on one core,
# side by side, each would get half of its seconds.
step "fuzz: replay corpus, then 60 s seeded (FUZZ_SEED=1 FUZZ_SERIAL=1 scripts/fuzz.sh 60)"
FUZZ_SEED=1 FUZZ_SERIAL=1 bash scripts/fuzz.sh 60

# The heights an embed keeps before it starts (www/embed-heights.js) must be what the release
# build measures, so a layout change that forgets to regenerate them fails here. It waits for
# every embed to hold its height (frames and a second), so a slow core draws late, never wrong.
step "embed heights (node scripts/embed-heights.mjs --check)"
node scripts/embed-heights.mjs --check

# Sizes are deterministic, so the first-visit size is checked here (times are only benchmarked).
step "size guard (node scripts/bench/sizes.mjs --check)"
node scripts/bench/sizes.mjs --check

# The native tests (built by the test command) but the lab's, which time real sockets and sleeps
# and run in the lab's step (scripts/native-tests.mjs says why this is not `cargo test -p`).
step "native tests (node scripts/native-tests.mjs --except fencing-lab), and the doc tests"
node scripts/native-tests.mjs --except fencing-lab
cargo test --workspace --doc

# The release package's JS API, loaded under Node (no browser): tests/node/*.test.mjs. The
# search API is tested through the search workers' package (dist/pkg-search/).
step "node API tests (node --test tests/node/*.test.mjs)"
node --test tests/node/*.test.mjs

# The JavaScript is type-checked (// @ts-check in www/ and scripts/) against the .d.ts files
# the release build generated.
step "typecheck (bash scripts/typecheck.sh)"
bash scripts/typecheck.sh

end_step
