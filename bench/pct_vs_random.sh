#!/bin/sh
# PCT against uniform random scheduling on the depth-2 bug of examples/order_violation_depth2.c: for each
# heuristic, how many seeds of 1..N it took to hit the first failure and how many of the N seeds failed.
#   bench/pct_vs_random.sh [BUILD_DIR] [N]        (defaults: ./build, 1000)
set -eu
build=${1:-./build}
seeds=${2:-1000}
guest="$build/examples/order_violation_depth2"
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
for heuristic in random pct; do
    "$build/hermit" search --seeds="1..$seeds" -j2 --sched-heuristic="$heuristic" --pct-depth=2 \
        --json="$results/$heuristic.json" -- "$guest" >/dev/null 2>&1
    first=$(jq -r '.failures[0].seed // "none"' "$results/$heuristic.json")
    count=$(jq -r '.failures | length' "$results/$heuristic.json")
    echo "$heuristic: first failing seed $first, $count failing of $seeds"
done
