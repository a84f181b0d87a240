#!/usr/bin/env bash
# Times rr's workflow after a long continue, on a replay of tests/guests/gdb_long_loop.c (a mark, a loop of a
# million iterations without syscalls, a mark): in one gdb session, `break late_mark`, `continue`, two
# `reverse-stepi` and `reverse-continue` to `early_mark`. Prints each step's seconds (from gdb's own
# `shell date` between commands) and the whole session's, median of RUNS sessions. Without a PMU, each step
# back over the loop counts its million arrivals with a hardware breakpoint (replay/ArrivalCounter.h).
#
# Usage: ./bench/reverse_step.sh BUILD_DIR [RUNS]
set -euo pipefail

build_dir=${1:?usage: $0 BUILD_DIR [RUNS]}
runs=${2:-3}
hermit=$(realpath "$build_dir")/hermit
guest=$(realpath "$build_dir")/guests/gdb_long_loop
[[ -x $hermit && -x $guest ]] || { echo "build hermit and its test guests in $build_dir first" >&2; exit 2; }
command -v gdb >/dev/null || { echo "gdb is not installed" >&2; exit 2; }

work=$(mktemp -d /tmp/hermit-reverse-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
export HERMIT_DATA_DIR=$work/recordings
"$hermit" record start -- "$guest" >/dev/null 2>&1

now='shell date +%s.%N'
session() {
    "$hermit" replay latest --serve-only --gdbserver-port=0 >/dev/null 2>"$work/server.err" &
    local server=$! port=""
    for _ in $(seq 600); do
        port=$(grep -o 'target remote :[0-9]*' "$work/server.err" | cut -d: -f2 || true)
        [[ -n $port ]] && break
        sleep 0.05
    done
    gdb -batch -nx "$guest" -ex 'set sysroot /' -ex "target remote :$port" -ex "$now" \
        -ex 'break late_mark' -ex continue -ex "$now" -ex reverse-stepi -ex "$now" -ex reverse-stepi \
        -ex "$now" -ex 'break early_mark' -ex reverse-continue -ex "$now" -ex kill 2>/dev/null |
        grep -E '^[0-9]{10}\.[0-9]+$'
    wait "$server"
}

for run in $(seq "$runs"); do
    session | awk -v run="$run" '{ t[NR] = $1 } END {
        printf "%s %.2f %.2f %.2f %.2f %.2f\n", run, t[2] - t[1], t[3] - t[2], t[4] - t[3], t[5] - t[4], t[5] - t[1] }'
done | sort -k6 -n | awk -v runs="$runs" '
    { row[NR] = $0 }
    END {
        print "| continue s | reverse-stepi s | reverse-stepi s | reverse-continue s | session s |"
        print "|---|---|---|---|---|"
        split(row[int((runs + 1) / 2)], m, " ")
        printf "| %s | %s | %s | %s | %s |\n", m[2], m[3], m[4], m[5], m[6]
    }'
