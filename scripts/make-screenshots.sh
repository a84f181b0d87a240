#!/bin/sh
# Regenerates the screenshots of docs/USER_GUIDE.md from real recordings, with `hermit gui --screenshot`:
#   docs/images/gui-four-threads.png          a guest with four worker threads (tests/guests/replay_threads.c)
#   docs/images/gui-diff-order-violation.png  examples/order_violation.c, a passing vs a failing chaos seed
# Usage: scripts/make-screenshots.sh [BUILD_DIR]   (default: build; needs the targets hermit,
#        guest_replay_threads and example_order_violation). Needs no display (Qt's offscreen platform).
set -eu

source_dir=$(cd "$(dirname "$0")/.." && pwd)
build_dir=$(cd "${1:-$source_dir/build}" && pwd)
hermit="$build_dir/hermit"
images="$source_dir/docs/images"
guest="$build_dir/guests/replay_threads"
example="$build_dir/examples/order_violation"

# Recordings go to a scratch store, not the user's.
HERMIT_DATA_DIR=$(mktemp -d)
export HERMIT_DATA_DIR QT_QPA_PLATFORM=offscreen
trap 'rm -rf "$HERMIT_DATA_DIR"' EXIT
mkdir -p "$images"

"$hermit" record start --name four-threads -- "$guest" > /dev/null
"$hermit" gui four-threads-1 --screenshot="$images/gui-four-threads.png"

# `hermit search` prints "seed N: exit status S" for each failing seed; the lowest seed not listed passes.
failing=$("$hermit" search --seeds=1..50 -- "$example" 2> /dev/null | sed -n 's/^seed \([0-9]*\): exit status.*/\1/p')
failing_seed=$(echo "$failing" | head -n 1)
passing_seed=1
while echo "$failing" | grep -qx "$passing_seed"; do
    passing_seed=$((passing_seed + 1))
done
if [ -z "$failing_seed" ]; then
    echo "make-screenshots: no failing seed of order_violation in 1..50" >&2
    exit 1
fi
for seed in "$passing_seed" "$failing_seed"; do
    "$hermit" record start --name "seed$seed" --chaos --sched-heuristic=random --seed="$seed" -- "$example" \
        > /dev/null || true # the failing seed exits with status 1
done
"$hermit" gui --diff "seed$passing_seed-1" "seed$failing_seed-1" --event-order \
    --screenshot="$images/gui-diff-order-violation.png"
echo "passing seed $passing_seed, failing seed $failing_seed; images in $images"
ls -l "$images"/gui-*.png
