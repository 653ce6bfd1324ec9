#!/usr/bin/env bash
# The lab's part of the test command, in three steps that stop at the first failure:
#   1. every preset and every saved case (lab/corpus/) against the real servers, compared with
#      the committed tables (`fencing-lab`);
#   2. a seeded batch of random scenarios (`fencing-lab random --seed 1 --count 30`), none of
#      which may disagree with the servers or stay late;
#   3. the mutation test: the lab built with a planted model bug (feature `planted-bug`: the
#      strict fence rule accepts an equal token) must see the servers disagree within the same
#      seed's cases. Step 2 ran those cases on the true model and they agreed, so what step 3
#      catches is the planted bug.
# `--build-only` builds both binaries and stops (the test command builds in the foreground,
# then runs this in the background).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
SEED=1
COUNT=30
cargo build -q -p fencing-lab --features planted-bug
cp target/debug/fencing-lab target/debug/fencing-lab-planted
cargo build -q -p fencing-lab
if [ "${1:-}" = "--build-only" ]; then exit 0; fi
start=$SECONDS
echo "[lab] presets and saved cases"
target/debug/fencing-lab
echo "[lab] random batch: seed $SEED, $COUNT cases ($((SECONDS - start)) s so far)"
target/debug/fencing-lab random --seed "$SEED" --count "$COUNT"
echo "[lab] mutation test: the planted bug must be caught within the same cases ($((SECONDS - start)) s so far)"
target/debug/fencing-lab-planted random --seed "$SEED" --count "$COUNT" --no-shrink --expect-mismatch
echo "[lab] all steps passed in $((SECONDS - start)) s"
