#!/usr/bin/env bash
# Runs every check the project has, in order, stopping at the first failure:
# tools, format, clippy (native + wasm32), native tests, the lab against real servers,
# in-browser wasm tests, release build, size guard, node API tests, fuzz, e2e.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

start=$SECONDS
stage_start=$SECONDS
stage_name=
summary=()
end_stage() {
  if [ -n "$stage_name" ]; then
    summary+=("$(printf '%5ss  %s' $((SECONDS - stage_start)) "$stage_name")")
  fi
}
stage() {
  end_stage
  stage_name=$1
  stage_start=$SECONDS
  printf '\n==================== %s ====================\n' "$1"
}
on_exit() {
  local rc=$?
  if [ "$rc" -ne 0 ]; then
    printf '\n==> FAILED in stage "%s" (exit %s) after %ss total\n' "$stage_name" "$rc" $((SECONDS - start))
  fi
  exit "$rc"
}
trap on_exit EXIT

stage "setup (scripts/setup.sh)"
bash scripts/setup.sh

stage "cargo fmt --check"
cargo fmt --all --check

stage "clippy native (all targets, playground and lab)"
cargo clippy --workspace --all-targets -- -D warnings

stage "clippy wasm32 (lib + tests, and the first stage's lib)"
cargo clippy --lib --tests --target wasm32-unknown-unknown --features search-api -- -D warnings
cargo clippy --lib --target wasm32-unknown-unknown --features first-stage -- -D warnings

stage "cargo test (native)"
cargo test

# The lab replays every reproducible preset against real redis-server and PostgreSQL servers it
# starts on loopback, and fails on any reply that differs from the model (or on a preset whose
# outcome differs from the committed docs/conformance.md). Its run has a budget of 3 minutes.
stage "lab: presets against real Redis and PostgreSQL (budget 3 min)"
cargo test -q -p fencing-lab
cargo build -q -p fencing-lab
timeout 180 target/debug/fencing-lab

# wasm-bindgen-test in headless Chromium, with Debian's chromedriver (wasm-pack must not download
# one). The runner merges webdriver.json (crate root) into the capabilities: it pins --no-sandbox,
# needed as root, and turns off Chromium's background network traffic.
stage "wasm-pack test (headless Chromium)"
wasm-pack test --headless --chrome --chromedriver /usr/bin/chromedriver

# Two release wasm builds: the page's, and the search workers' (feature search-worker, in
# target/search-wasm/, whose first build compiles the dependencies once more: about 3 minutes on
# a bare 2-core machine). Budget: 10 minutes cold, about 2 warm.
stage "release build (scripts/build.sh)"
bash scripts/build.sh

# Sizes are deterministic, so the first-visit size is checked here (times are only benchmarked).
stage "size guard (node scripts/bench/sizes.mjs --check)"
node scripts/bench/sizes.mjs --check

# The release package's JS API, loaded under Node (no browser): tests/node/*.test.mjs.
# The search API is not in the page's wasm yet (no control uses it): a dev build with the
# feature gives the Node tests a package that has it.
stage "search API package (wasm-pack build --dev --features search-api; budget 3 min)"
wasm-pack build --dev --target web --out-dir target/pkg-search --no-pack . -- --features search-api

stage "node API tests (node --test tests/node/*.test.mjs)"
node --test tests/node/*.test.mjs

# The saved reproducers are replayed, then one seeded minute of fuzzing, half native (release
# build of tests/fuzz, about 3 minutes to compile the first time on 2 cores) and half under Node
# against the package just built. Budget: 5 minutes.
stage "fuzz: replay corpus, then 60 s seeded (FUZZ_SEED=1 scripts/fuzz.sh 60; budget 5 min)"
FUZZ_SEED=1 bash scripts/fuzz.sh 60

# @playwright/test with Debian's Chromium (playwright.config.mjs): it serves dist/ on free
# loopback ports, keeps a trace and a screenshot of each failed test in artifacts/test-results/
# and writes an HTML report to artifacts/playwright-report/ (never opened here).
stage "browser e2e (npx playwright test)"
rm -rf artifacts/screenshots # so stale screenshots are never mistaken for this run's
npx --no-install playwright test

end_stage
printf '\n==================== all checks passed ====================\n'
printf '%s\n' "${summary[@]}"
printf '%5ss  total (screenshots in artifacts/screenshots/)\n' $((SECONDS - start))
