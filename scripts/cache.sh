# Sourced by scripts/test.sh: one cargo target directory shared by every clone on this machine.
#
# A clone with no target/ of its own (a fresh clone, as CI makes) builds in
#   ${FENCING_CACHE_DIR:-~/.cache/fencing-playground}/target-<key>
# where <key> hashes the toolchain (`rustc -vV` and rust-toolchain.toml): the first clone on a
# bare machine fills it, and the next reuses the dependencies it compiled and, through
# scripts/restore-mtimes.mjs, every workspace crate whose sources have not changed. Cargo.lock is
# not in the key: cargo rebuilds what a changed lock file changes, and reuses the rest. What an
# older lock file left behind stays, so a directory past 20 GB is emptied first. A checkout
# that has a target/ (a developer's, built by hand) keeps building there, untouched;
# FENCING_SHARED_TARGET=1 makes it use the shared one too, FENCING_SHARED_TARGET=0 never.
#
# Safety: cargo trusts file times, so every build into the shared directory must come from a run
# that restored them first. Runs take a lock (one at a time), and a run that finds a build newer
# than the last run's end (a build outside a run, or a run that was killed) forgets the manifest:
# every workspace crate is rebuilt once, the dependencies are still reused.
# Only the two most recently used keys (toolchains) are kept.

shared_target() {
  local own=${FENCING_SHARED_TARGET:-auto}
  if [ "$own" = 0 ] || { [ "$own" = auto ] && [ -e target ]; }; then
    echo "[cache] this checkout has its own target/: building there"
    lint_guard target
    return 0
  fi
  local root=${FENCING_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/fencing-playground}
  local key
  key=$({ rustc -vV; cat rust-toolchain.toml; } | sha256sum | cut -c1-16)
  local dir="$root/target-$key"
  mkdir -p "$dir"
  # One run at a time: file descriptor 9 holds the lock until this shell exits.
  exec 9>"$dir.lock"
  if ! flock -n 9; then
    echo "[cache] another run is using $dir: waiting for it"
    flock 9
  fi
  local kb
  kb=$(du -sk "$dir" 2>/dev/null | cut -f1)
  if [ "${kb:-0}" -gt $((20 * 1024 * 1024)) ]; then
    echo "[cache] $dir holds $((kb / 1024 / 1024)) GB: emptied, this run builds everything"
    rm -rf "$dir"
    mkdir -p "$dir"
  fi
  export CARGO_TARGET_DIR="$dir"
  local forget=
  if [ -f "$dir/.sources.json" ]; then
    if ! [ -f "$dir/.run-ended" ]; then
      echo "[cache] the last run into $dir did not end: every file counts as changed"
      forget=--forget
    elif [ -n "$(find "$dir" -path '*/.fingerprint/*' -newer "$dir/.run-ended" -print -quit 2>/dev/null)" ]; then
      echo "[cache] $dir holds a build newer than the last run's end: every file counts as changed"
      forget=--forget
    fi
  fi
  rm -f "$dir/.run-ended"
  node scripts/restore-mtimes.mjs "$dir/.sources.json" $forget
  echo "[cache] building in $dir"
  touch "$dir"
  # Older keys (another toolchain): all but the two most recently used go.
  local old
  for old in $(ls -1dt "$root"/target-*/ 2>/dev/null | tail -n +3); do
    echo "[cache] removing an old target directory: $old"
    rm -rf "$old" "${old%/}.lock"
  done
}

# A checkout's own target/: scripts/test.sh has clippy lint the workspace's crates as its test
# builds compile them (clippy-driver as their compiler), and cargo counts a crate built since by a
# command without it (`cargo test` by hand) as fresh, which would leave it unlinted. So when the
# directory holds a build newer than the last run's end (or no run has ended there), every file
# git tracks is given the present time: the workspace's crates are compiled again, linted; the
# dependencies are reused.
lint_guard() {
  local dir=$1
  if [ -d "$dir" ] && [ -f "$dir/.run-ended" ] \
    && [ -z "$(find "$dir" -path '*/.fingerprint/*' -newer "$dir/.run-ended" -print -quit 2>/dev/null)" ]; then
    rm -f "$dir/.run-ended"
    return 0
  fi
  echo "[cache] $dir holds builds made outside this command: the workspace's crates are compiled again, through clippy"
  git ls-files -z | xargs -0 touch -c --
  rm -f "$dir/.run-ended"
}

# Called when the run ends, passed or failed: builds after this instant are outside any run.
shared_target_end() {
  local dir=${CARGO_TARGET_DIR:-target}
  if [ -d "$dir" ]; then
    touch "$dir/.run-ended"
  fi
}
