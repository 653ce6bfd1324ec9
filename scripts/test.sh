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
# CPU seconds (user + system) of the children this shell has waited for, as `times` reports
# them: a stage's CPU beside its wall time says how much of the two cores it kept busy (a
# background job's CPU is counted in the stage that waits for it).
# (`times` must run in this shell: a command substitution's subshell has waited for no one.)
times_file=$(mktemp)
read_cpu() {
  times >"$times_file"
  cpu_now=$(awk 'NR == 2 {
    t = 0
    for (i = 1; i <= 2; i++) { split($i, p, /[ms]/); t += p[1] * 60 + p[2] }
    printf "%d", t
  }' "$times_file")
}
cpu_now=0
stage_cpu=0
end_stage() {
  if [ -n "$stage_name" ]; then
    read_cpu
    summary+=("$(printf '%5ss %5s cpu-s  %s' $((SECONDS - stage_start)) $((cpu_now - stage_cpu)) "$stage_name")")
  fi
}
stage() {
  end_stage
  stage_name=$1
  stage_start=$SECONDS
  read_cpu
  stage_cpu=$cpu_now
  printf '\n==================== %s ====================\n' "$1"
}
# Every run ends with each stage's time, failed or not. Budgets (tools installed, 2 cores):
# the whole command 10 minutes; from a bare machine 15 (setup's installs are about 4 of them).
print_times() {
  printf '\n==================== stage times ====================\n'
  printf '%s\n' "${summary[@]}"
  read_cpu
  printf '%5ss %5s cpu-s  total\n' $((SECONDS - start)) "$cpu_now"
}
on_exit() {
  local rc=$?
  if [ -n "${lab_pid:-}" ]; then
    # the background job is a subshell around `timeout`, which passes the signal to the lab
    pkill -TERM -P "$lab_pid" 2>/dev/null || true
    kill "$lab_pid" 2>/dev/null || true
  fi
  if [ -n "${build_pid:-}" ]; then
    pkill -TERM -P "$build_pid" 2>/dev/null || true
    kill "$build_pid" 2>/dev/null || true
  fi
  rm -f "$times_file"
  if [ "$rc" -ne 0 ]; then
    end_stage
    print_times
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

# The lab (scripts/lab-check.sh): every preset and every saved case of lab/corpus/ against real
# redis-server and PostgreSQL servers it starts on loopback, compared with the model (a
# mismatch, a preset committed as `match` that comes back late, an orphan row, or a generated
# table that is not what the run writes all fail it); then a seeded batch of random scenarios;
# then the mutation test: the lab built with a planted model bug must see the servers disagree.
# Its budget is 4 minutes. Most of it is waiting (the servers run in real time, 20 ms per
# simulated one), so it runs in the background beside the release build (niced) and the
# command waits for it in the next stage (see there why not beside the other stages). Its output
# is shown, and its exit status checked, in that stage.
# The 4 minutes are measured, not enforced: a CI run beside the other stages took 84 s for the
# presets and 83 s for the random batch, and a kill at 240 s failed it with nothing wrong. Its
# time is printed against the budget (an overrun is a line to read, not a failure); the
# `timeout` is a hang guard only (10 minutes), and the lab's own steps fail on what they compare.
stage "lab: build and unit tests"
# The clock shim first: a test of the lab preloads it into a redis-server.
cargo build -q -p fencing-lab-clockshim
cargo test -q -p fencing-lab
bash scripts/lab-check.sh --build-only
lab_log=$(mktemp)
lab_started=$SECONDS
lab_done=$(mktemp)
{
  rc=0
  timeout 600 bash scripts/lab-check.sh --run-only >"$lab_log" 2>&1 || rc=$?
  echo $((SECONDS - lab_started)) >"$lab_done"
  exit "$rc"
} &
lab_pid=$!

# The release build (scripts/build.sh) starts now too, in the background at nice 10: most of
# its 150 s is one core in fat LTO and wasm-opt, so it fills the core the stages below leave
# idle (release and debug builds lock different build directories). Its output and status
# are shown in the "release build" stage.
build_log=$(mktemp)
nice -n 10 bash scripts/build.sh >"$build_log" 2>&1 &
build_pid=$!

# The lab waits here, beside the release build only (at nice 10, below the lab's clients and
# servers at -10). Beside clippy wasm32, the native tests and the headless Chromium of
# wasm-pack test (2026-12-05, with independent Redlock clients), every Redlock round came back
# 0.4 to 1.1 simulated ms late at scales 20, 40 and 80 alike, four Redlock presets stayed late
# and the presets step ran out of its 210 s: a red run with nothing wrong. Run under SCHED_IDLE
# (`chrt --idle 0`) beside the lab instead (2026-12-06, another build running on the machine),
# it was no better: single-lock presets came back up to 98 real ms late at scale 80 and the
# presets step ran out again. Tried once more under SCHED_IDLE on a quiet machine (2026-12-06,
# nothing else running): red again, a Redlock round 1380 real ms late at scale 80 and six saved
# cases left unrun when the presets step ran out of its budget. Alone beside the release build
# it costs the command about the lab's own time in wall time instead.
stage "lab: presets, saved cases, random batch, mutation test (budget 4 min, measured; beside the release build only)"
lab_status=0
wait "$lab_pid" || lab_status=$?
lab_pid=
cat "$lab_log"
rm -f "$lab_log"
lab_took=$(cat "$lab_done" 2>/dev/null || echo "?")
rm -f "$lab_done"
if [ "$lab_status" -eq 124 ]; then
  echo "[lab] hung: killed by its 10-minute hang guard" >&2
  exit "$lab_status"
fi
if [ "$lab_status" -ne 0 ]; then
  echo "[lab] failed (exit $lab_status) after $lab_took s" >&2
  exit "$lab_status"
fi
if [ "$lab_took" != "?" ] && [ "$lab_took" -gt 240 ]; then
  echo "[lab] passed in $lab_took s, over its 4-minute budget by $((lab_took - 240)) s (measured, not a failure)"
else
  echo "[lab] passed in $lab_took s (budget 4 min)"
fi
summary+=("$(printf '%5ss %5s        %s' "$lab_took" "" "  (the lab's own wall time, beside the niced release build only)")")

stage "clippy wasm32 (lib + tests, and the first stage's lib)"
cargo clippy --lib --tests --target wasm32-unknown-unknown --features search-api -- -D warnings
cargo clippy --lib --target wasm32-unknown-unknown --features first-stage -- -D warnings

stage "cargo test (native)"
cargo test

# wasm-bindgen-test in headless Chromium, with Debian's chromedriver (wasm-pack must not download
# one). The runner merges webdriver.json (crate root) into the capabilities: it pins --no-sandbox,
# needed as root, and turns off Chromium's background network traffic.
# The runner gives the whole browser session 20 s by default (WASM_BINDGEN_TEST_TIMEOUT), counted
# from before the 70 MB debug wasm is compiled: on a quiet machine the suite takes 17.6 s in all
# (tests 9.5 s), so beside the lab it ran out and failed with "webdriver POST .../execute/sync
# timed out after 19 s" although no test was slow. That limit was a time assertion; this one is a
# hang guard only (a stuck test still fails, after 5 minutes).
stage "wasm-pack test (headless Chromium)"
WASM_BINDGEN_TEST_TIMEOUT=300 wasm-pack test --headless --chrome --chromedriver /usr/bin/chromedriver


# Three release wasm builds in one target directory: the page's, the search workers' (feature
# search-worker, the crate at opt-level 3) and the first stage's (feature first-stage); the
# dependencies compile once, for the first. Budget: 4 minutes cold, about 1 warm.
stage "release build (scripts/build.sh, in the background from after the lab's build)"
build_status=0
wait "$build_pid" || build_status=$?
build_pid=
cat "$build_log"
rm -f "$build_log"
if [ "$build_status" -ne 0 ]; then
  echo "[build] failed (exit $build_status)" >&2
  exit "$build_status"
fi

# Sizes are deterministic, so the first-visit size is checked here (times are only benchmarked).
stage "size guard (node scripts/bench/sizes.mjs --check)"
node scripts/bench/sizes.mjs --check

# The heights an embed keeps before it starts (www/embed-heights.js) must be what the release
# build measures, so a layout change that forgets to regenerate them fails here (about 4 s:
# every embed is measured at once).
stage "embed heights (node scripts/embed-heights.mjs --check)"
node scripts/embed-heights.mjs --check

# The JavaScript is type-checked (// @ts-check in www/ and scripts/) against the .d.ts files
# the release build generated.
stage "typecheck (bash scripts/typecheck.sh)"
bash scripts/typecheck.sh

# The release package's JS API, loaded under Node (no browser): tests/node/*.test.mjs. The
# search API is tested through the search workers' package (dist/pkg-search/, feature
# search-worker, which has the search-api feature), built above.
stage "node API tests (node --test tests/node/*.test.mjs)"
node --test tests/node/*.test.mjs

# The saved reproducers are replayed, then one seeded minute of fuzzing, half native (the test
# profile's build of tests/fuzz, which `cargo test` made: overflow checks and debug assertions
# on) and half under Node against the package just built. Budget: 2 minutes.
stage "fuzz: replay corpus, then 60 s seeded (FUZZ_SEED=1 scripts/fuzz.sh 60; budget 2 min)"
FUZZ_SEED=1 bash scripts/fuzz.sh 60

# @playwright/test with Debian's Chromium (playwright.config.mjs): it serves dist/ on free
# loopback ports, keeps a trace and a screenshot of each failed test in artifacts/test-results/
# and writes an HTML report to artifacts/playwright-report/ (never opened here).
stage "browser e2e (npx playwright test)"
rm -rf artifacts/screenshots # so stale screenshots are never mistaken for this run's
npx --no-install playwright test

end_stage
print_times
printf '\n==================== all checks passed (screenshots in artifacts/screenshots/) ====================\n'
