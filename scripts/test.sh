#!/usr/bin/env bash
# Runs every check the project has, stopping at the first failure: format, clippy (native and
# wasm32), the lab against real servers and beside it the native tests, in-browser wasm tests,
# the release build and its size guard, the Node API tests, fuzz and the browser end-to-end
# tests.
#
# Budgets (2 cores): 15 minutes from a bare machine (only Rust and Node), 6 minutes on a machine
# that has built the project before. How it keeps to them:
# - One target directory for every clone (scripts/cache.sh): a fresh clone reuses what an earlier
#   clone compiled, its own unchanged sources included.
# - The installs (scripts/setup.sh: two `cargo install`s, Debian's packages, npm, MkDocs
#   Material from PyPI) run in the background while the stages that need none of them compile:
#   format, the native and wasm32 test builds and the lab, linted by clippy as they compile.
# - The lab runs its independent scenarios side by side (scripts/lab-check.sh). Its presets
#   measure real time, so what runs beside it takes only the cycles the lab leaves on core 0: the
#   release build and then the checks that measure no time (scripts/beside-the-lab.sh); the
#   browser tests start when the lab ends.
# Every run ends with each stage's wall time and CPU time; background jobs report their own.
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
print_times() {
  printf '\n==================== stage times ====================\n'
  printf '%s\n' "${summary[@]}"
  read_cpu
  printf '%5ss %5s cpu-s  total\n' $((SECONDS - start)) "$cpu_now"
}

# Background jobs: `bg NAME COMMAND…` starts one with its output in a file; `join NAME` waits
# for it, shows its output and its own wall time, and fails the run if it failed.
declare -A bg_pid=() bg_log=()
bg() {
  local name=$1
  shift
  local log
  log=$(mktemp)
  (
    began=$SECONDS
    rc=0
    # A job may list its own steps' times here (scripts/beside-the-lab.sh does); join adds
    # them to the stage times.
    export FENCING_STEPS_FILE=$log.steps
    "$@" || rc=$?
    echo $((SECONDS - began)) >"$log.took"
    exit "$rc"
  ) >"$log" 2>&1 &
  bg_pid[$name]=$!
  bg_log[$name]=$log
}
join() {
  local name=$1 rc=0
  wait "${bg_pid[$name]}" || rc=$?
  local log=${bg_log[$name]} took
  took=$(cat "$log.took" 2>/dev/null || echo "?")
  cat "$log"
  summary+=("$(printf '%5ss %5s        %s' "$took" "" "  ($name: its own wall time, in the background)")")
  if [ -s "$log.steps" ]; then mapfile -t -O "${#summary[@]}" summary <"$log.steps"; fi
  rm -f "$log" "$log.took" "$log.steps"
  unset "bg_pid[$name]" "bg_log[$name]"
  if [ "$rc" -ne 0 ]; then
    echo "[$name] failed (exit $rc) after $took s" >&2
    exit "$rc"
  fi
  echo "[$name] done in $took s"
}

# Waits until background job NAME has listed a step whose name holds TEXT among its steps'
# times (the step has ended); fails the run if the job ends without it.
wait_for_step() {
  local name=$1 text=$2
  until grep -qF -- "$text" "${bg_log[$name]}.steps" 2>/dev/null; do
    if ! kill -0 "${bg_pid[$name]}" 2>/dev/null; then
      join "$name" # shows its output, and fails the run if it failed
      echo "[$name] ended without its step \"$text\"" >&2
      exit 1
    fi
    sleep 1
  done
}

# Every process under a background job, the job's shell first: collected before any is
# stopped, so that nothing is left reparented and running (until 2026-12-07 a failed run killed
# only each job's direct children, and a Chromium of the browser tests or a wasm-pack test run
# went on beside the next run).
process_tree() {
  local pids=("$1") i=0 child
  while [ "$i" -lt "${#pids[@]}" ]; do
    for child in $(pgrep -P "${pids[$i]}" 2>/dev/null); do pids+=("$child"); done
    i=$((i + 1))
  done
  echo "${pids[@]}"
}

# Gives a background job pinned to a core (taskset) every core again: the job's own shell and
# each process under it, every thread of each; what they start later inherits it.
widen_to_all_cores() {
  local i
  for i in $(process_tree "$1"); do
    taskset -a -p -c "0-$(($(nproc) - 1))" "$i" >/dev/null 2>&1 || true
  done
}

on_exit() {
  local rc=$?
  local name tree=()
  for name in "${!bg_pid[@]}"; do
    # shellcheck disable=SC2207
    tree+=($(process_tree "${bg_pid[$name]}"))
  done
  if [ "${#tree[@]}" -gt 0 ]; then
    kill -TERM "${tree[@]}" 2>/dev/null || true
    sleep 1
    kill -KILL "${tree[@]}" 2>/dev/null || true
  fi
  for name in "${!bg_pid[@]}"; do
    if [ "$rc" -ne 0 ] && [ -f "${bg_log[$name]}" ]; then
      printf '\n[%s] stopped; its output so far:\n' "$name"
      tail -40 "${bg_log[$name]}"
    fi
    rm -f "${bg_log[$name]}" "${bg_log[$name]}.took" "${bg_log[$name]}.steps"
  done
  shared_target_end
  rm -f "$times_file" "${FENCING_NATIVE_TESTS:-}"
  if [ "$rc" -ne 0 ]; then
    end_stage
    print_times
    printf '\n==> FAILED in stage "%s" (exit %s) after %ss total\n' "$stage_name" "$rc" $((SECONDS - start))
  fi
  exit "$rc"
}
trap on_exit EXIT

# shellcheck source=scripts/cache.sh
source scripts/cache.sh
stage "setup: the toolchain's parts, the shared target directory; the installs start in the background"
bash scripts/setup.sh rust
shared_target
bg setup bash scripts/setup.sh

stage "cargo fmt --check"
cargo fmt --all --check

# Clippy lints the workspace's crates as they are compiled for the tests, not in a check pass of
# its own: clippy-driver is the compiler of the workspace's crates (what `cargo clippy` does, with
# `-D warnings` passed the way it passes it), so every dependency is compiled once, for the
# tests, where a `cargo clippy` pass first compiled each again in check mode (measured from
# bare at c00fe7d: clippy native 204 s and wasm32 60 s before the builds). Every debug build of
# the test command, here and in the jobs it starts, goes through it (a workspace crate built
# without it would count as fresh to a later linted build, unlinted; scripts/cache.sh rebuilds
# the workspace's crates once after any build outside a run). The release build does not
# (scripts/beside-the-lab.sh): clippy-driver turns MIR optimisations off, which would change
# the wasm the page ships.
export RUSTC_WORKSPACE_WRAPPER CLIPPY_ARGS
RUSTC_WORKSPACE_WRAPPER=$(rustup which clippy-driver)
CLIPPY_ARGS=-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__

# Built now, beside the installs; run once the servers and the browser are there.
# Every native test command names the whole workspace: cargo resolves the features of the
# crates' dependencies per command, from the packages it is given, and the lab's (its Redis and
# ZooKeeper clients, the model's planted bugs) turn on features the playground's alone do not; a
# command for one package and one for another then built the playground's library differently,
# each replacing the other's, and a run where nothing had changed recompiled it and its tests
# (about 70 s).
stage "build and clippy, native: the tests of every crate (all targets), the fuzz target, the lab"
cargo test --workspace --no-run -q
bash scripts/lab-check.sh --build-only
# Where the native test binaries are, asked of cargo now, once: later runs of
# scripts/native-tests.mjs (the lab's tests, the other native tests) read it instead of taking
# the build directory's lock, which the wasm32 test build beside the lab holds.
export FENCING_NATIVE_TESTS
FENCING_NATIVE_TESTS=$(mktemp)
node scripts/native-tests.mjs --save "$FENCING_NATIVE_TESTS"

# The wasm32 test build is the one `wasm-pack test` makes (`cargo build --tests`, debug), with
# the search API (scripts/beside-the-lab.sh passes the same feature) so that its code is linted
# with the tests as `cargo clippy --lib --tests --features search-api` did. The first stage's
# library has no test build: a clippy pass of its own (small: no Yew). Before the lab, on both
# cores: beside it, even at nice 19, a cold compile on the lab's core made its presets late
# (2026-12-07, d5ede28: 37 runs retried, redlock-cas judged a mismatch 1.4 s late).
stage "build and clippy, wasm32: the wasm32 tests (feature search-api); clippy on the first stage's lib"
cargo build -q --tests --target wasm32-unknown-unknown --features search-api
cargo clippy --lib --target wasm32-unknown-unknown --features first-stage -- -D warnings

stage "wait for the installs (scripts/setup.sh)"
join setup

# The lab (scripts/lab-check.sh): every preset and every saved case of lab/corpus/ against real
# redis-server, PostgreSQL, etcd and ZooKeeper servers it starts on loopback, compared with the
# model, several scenarios side by side; then a seeded batch of random scenarios; then the
# mutation test. Most of it is waiting (20 real ms per simulated one): about 76 cpu-s in 180 s.
# Its servers run at nice -10 (the lab's servers.rs), its clients at 0, on both cores; it starts
# with the lab's own unit and integration tests, which time real sockets, servers and sleeps.
# Everything else runs in the cycles it leaves, at lower priority or on core 0:
# - scripts/beside-the-lab.sh, pinned to core 0 at normal priority (under a load of normal
#   priority, as stress-ng, a niced or SCHED_IDLE job got a tenth of a core or nothing, and its
#   Chromium steps timed out): first the three release builds (at nice 10), then the checks
#   that measure no time (wasm-pack test, fuzz, the native tests, the size guard, embed heights,
#   typecheck, the node API tests).
# The `timeout` is a hang guard only (15 minutes); the lab's own steps fail on what they compare.
# Chromium run as root raises its own threads (the browser's main and IO threads, each
# renderer's compositor) to nice -8, above the lab's clients (0), whatever nice it was started
# at: beside the lab, the browser tests at nice 10 made its presets late by hundreds of
# milliseconds and broke ZooKeeper sessions (2026-12-07, at 739eb8f), and wasm-pack's and the
# embed heights' Chromium ran above it on core 0. Everything beside the lab runs without
# CAP_SYS_NICE, so no process of it can raise its priority (a user that is not root cannot
# anyway).
no_raise=()
if [ "$(id -u)" -eq 0 ]; then no_raise=(setpriv --bounding-set -sys_nice --); fi
stage "lab, and beside it on core 0 the release build and the checks that measure no time"
bg lab timeout 900 bash scripts/lab-check.sh --run-only
bg "beside the lab" "${no_raise[@]}" taskset -c 0 bash scripts/beside-the-lab.sh
join lab
widen_to_all_cores "${bg_pid["beside the lab"]}"

# @playwright/test with Debian's Chromium (playwright.config.mjs): it serves dist/ on free
# loopback ports, keeps a trace and a screenshot of each failed test in artifacts/test-results/
# and writes an HTML report to artifacts/playwright-report/ (never opened here). After the lab,
# not beside it. Tried on 2026-12-07 at nice 10 and without CAP_SYS_NICE: from the lab's start
# (5648c75) its Chromium made the lab's Redlock replay test miss its schedule (0.4 ms
# tolerance) at every scale; started after the lab's own tests (74f7204), the presets took
# 282 s instead of 77 with 52 runs retried, three late at every scale and a ZooKeeper preset
# judged a mismatch (lab/open/2026-12-07-loaded-zk-suspended-stops.md).
stage "wait for the release build (beside the lab), which the browser tests load"
wait_for_step "beside the lab" "release build"

stage "browser e2e (npx playwright test)"
rm -rf artifacts/screenshots # so stale screenshots are never mistaken for this run's
npx --no-install playwright test

stage "the checks beside the lab (their steps' own times below)"
join "beside the lab"

end_stage
print_times
printf '\n==================== all checks passed (screenshots in artifacts/screenshots/) ====================\n'
