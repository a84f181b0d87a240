#!/usr/bin/env bash
# Times each workload natively, under `strace -f`, `hermit run`, `hermit run --strace-only` (to compare
# hermit's ptrace loop with strace's), `hermit record start` and `hermit replay --autopilot`, and prints a
# Markdown table of medians, ratios, the size of a recording per second of recorded run and the ptrace stops
# of one `hermit run` (load-independent, unlike the seconds). Workloads and modes are the data arrays below:
# a mode is one more "name|command prefix" line (replay, which needs a recording first, is the one mode
# handled apart in the loop).
#
# Usage: ./bench/run.sh [--quick] [--interleaved=ROUNDS] BUILD_DIR
#   --quick            one run per cell and a tenth of the loop counts (a smoke test, not a measurement)
#   --interleaved=N    N rounds, each running native, strace -f, hermit, record and replay of every workload
#                      once, one after another: a VM's speed drifts over minutes, and cells timed side by
#                      side drift together. Prints medians and the median of the per-round ratios. A
#                      workload whose first native run is shorter than 0.1 s runs 5 times per cell (their
#                      median is the round's sample): a single run of a few milliseconds is mostly jitter.
#                      Its table also lists the system files each row's recording keeps in the blob store.
set -euo pipefail

usage() {
    echo "usage: $0 [--quick] [--interleaved=ROUNDS] BUILD_DIR" >&2
    exit 2
}

quick=0
interleaved=0
build_dir=""
for argument in "$@"; do
    case $argument in
    --quick) quick=1 ;;
    --interleaved=*) interleaved=${argument#*=}; [[ $interleaved =~ ^[1-9][0-9]*$ ]] || usage ;;
    -h | --help) usage ;;
    *) [[ -z $build_dir ]] || usage; build_dir=$argument ;;
    esac
done
[[ -n $build_dir ]] || usage
hermit=$(realpath "$build_dir")/hermit
[[ -x $hermit ]] || { echo "no hermit binary at $hermit" >&2; exit 2; }
command -v strace >/dev/null || { echo "strace is not installed" >&2; exit 2; }

bench_dir=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/hermit-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$bench_dir/workloads/prepare.sh" "$work"

if ((quick)); then
    runs=1 syscalls=20000 cpu_rounds=60000000 lock_rounds=5000 pipe_bytes=20000000 tar_tree=include/linux
else
    runs=3 syscalls=200000 cpu_rounds=600000000 lock_rounds=50000 pipe_bytes=200000000 tar_tree=include
fi
# A cell that takes longer than this is reported as a timeout instead of stalling the whole table.
time_limit=300
# The real interpreter, not a version-manager shim, so every mode runs the same binary.
python=$(command -v /usr/bin/python3 || command -v python3)

recordings=$work/recordings
# In every mode's environment (only record and replay use it): an `env` in front of their commands alone
# cost them an exec, 2.4-3.5 ms here, a seventh of the mutex workload's `hermit run`.
export HERMIT_DATA_DIR=$recordings
record="$hermit record start --"
# Replay is not a prefix: each timed replay is of a recording made, untimed, by its preparation, after
# which the workload's own preparation runs again so the replay starts from the files the recording did.
replay="$hermit replay --autopilot"

# name|command prefix
modes=(
    "native|"
    "strace -f|strace -f -o /dev/null"
    "hermit|$hermit run --"
    "hermit --strace-only|$hermit run --strace-only --strace-file /dev/null --"
    "record|$record"
    "replay|$replay"
)

# name|preparation before each timed run (not timed)|command
workloads=(
    "getpid x$syscalls|true|$work/getpid_loop $syscalls"
    "write x$syscalls|true|$work/write_loop $work/writes.out $syscalls"
    "cpu loop|true|$work/cpu_loop $cpu_rounds"
    "4-thread mutex|true|$work/mutex_threads $lock_rounds"
    "python sum|true|$python -c 'print(sum(range(10**6)))'"
    "sqlite3 50k inserts|rm -f $work/bench.db|sqlite3 $work/bench.db < $work/inserts.sql"
    "git add 300 files|rm -rf $work/repo/.git && git -C $work/repo init -q|git -C $work/repo add ."
    "make -j2 20 files|make -s -C $work/project clean|make -s -C $work/project -j2"
    "sort 5 MB|rm -f $work/sorted.txt|sort -o $work/sorted.txt $work/lines.txt"
    "pipe $((pipe_bytes / 1000000)) MB|true|sh -c 'head -c $pipe_bytes /dev/zero | cat >/dev/null'"
    "tar czf + tar tzf|rm -f $work/tree.tgz|sh -c 'tar czf $work/tree.tgz -C /usr $tar_tree && tar tzf $work/tree.tgz | wc -l'"
)

# The median of the numbers on stdin, or "-" when a run failed or timed out.
median() {
    sort -g | awk '!/^[0-9.]+$/ { bad = 1 } { t[NR] = $1 } END { if (bad || NR == 0) print "-"; else printf "%.3f\n", t[int((NR + 1) / 2)] }'
}

# Prints the median wall time in seconds of `runs` runs of COMMAND, or "fail"/"timeout".
median_seconds() {
    local prepare=$1 command="timeout $time_limit $2"
    if command -v hyperfine >/dev/null; then
        local json=$work/hyperfine.json
        if ! hyperfine --runs "$runs" --prepare "$prepare" --style none --export-json "$json" "$command" \
            >/dev/null 2>"$work/hyperfine.err"; then
            grep -q 'exit code: 124' "$work/hyperfine.err" && echo timeout || echo fail
            return
        fi
        "$python" -c 'import json, sys; print("%.3f" % json.load(open(sys.argv[1]))["results"][0]["median"])' "$json"
        return
    fi
    local times=() start end status
    for ((run = 0; run < runs; run++)); do
        bash -c "$prepare" >/dev/null 2>&1
        start=$(date +%s.%N)
        status=0
        bash -c "$command" >/dev/null 2>&1 || status=$?
        end=$(date +%s.%N)
        if ((status == 124)); then echo timeout; return; fi
        if ((status != 0)); then echo fail; return; fi
        times+=("$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')")
    done
    printf '%s\n' "${times[@]}" | median
}

ratio() {
    if [[ $1 =~ ^[0-9.]+$ && $2 =~ ^[0-9.]+$ ]] && awk -v d="$2" 'BEGIN { exit !(d > 0) }'; then
        awk -v n="$1" -v d="$2" 'BEGIN { printf "%.2fx", n / d }'
    else
        echo "-"
    fi
}

# Prints the ptrace stops of one `hermit run` of COMMAND after PREPARE (its debug log counts them): unlike
# seconds, they do not depend on the machine's load.
hermit_stops() {
    local prepare=$1 command=$2
    bash -c "$prepare" >/dev/null 2>&1
    bash -c "timeout $time_limit $hermit --log=debug run -- $command" 2>&1 >/dev/null |
        sed -n 's/.*guest done: \([0-9]*\) ptrace stops.*/\1/p' | grep . || echo "-"
}

# Prints the size of the latest recording, "N B".
recording_size() {
    echo "$(du -sbL "$recordings/latest" | cut -f1) B"
}

# "N files, M MiB": the system files the latest recording keeps in the store's blobs (shared by recordings).
system_files() {
    "$hermit" record info --json latest 2>/dev/null | "$python" -c '
import json, sys
files = json.load(sys.stdin).get("system_files", [])
print("%d files, %.1f MiB" % (len(files), sum(f["size"] for f in files) / 1048576))' || echo "-"
}

# "N KB/s": SIZE ("N B") of recording per SECONDS of recorded run.
rate() {
    if [[ $1 =~ ^[0-9]+\ B$ && $2 =~ ^[0-9.]+$ ]] && awk -v d="$2" 'BEGIN { exit !(d > 0) }'; then
        awk -v b="${1% B}" -v s="$2" 'BEGIN { printf "%.0f KB/s", b / 1024 / s }'
    else
        echo "-"
    fi
}

# The median of the per-round ratios of two lists of times (one per round, in round order).
paired_ratio() {
    paste -d' ' <(tr ' ' '\n' <<<"$1" | grep .) <(tr ' ' '\n' <<<"$2" | grep .) |
        awk '$1 ~ /^[0-9.]+$/ && $2 ~ /^[0-9.]+$/ && $2 > 0 { print $1 / $2 }' | median |
        awk '/^[0-9.]+$/ { printf "%.2fx\n", $1; next } { print }'
}

if ((interleaved > 0)); then
    declare -A samples=() cell_runs=() kept=()
    interleaved_modes=("native|" "strace -f|strace -f -o /dev/null" "hermit|$hermit run --" "record|$record")
    for ((round = 1; round <= interleaved; round++)); do
        echo "round $round of $interleaved" >&2
        for workload in "${workloads[@]}"; do
            IFS='|' read -r name prepare command <<<"$workload"
            if [[ -z ${cell_runs[$name]:-} ]]; then
                runs=1
                first=$(median_seconds "$prepare" "$command")
                cell_runs[$name]=$(awk -v t="$first" 'BEGIN { print (t ~ /^[0-9.]+$/ && t < 0.1) ? 5 : 1 }')
            fi
            runs=${cell_runs[$name]}
            for mode in "${interleaved_modes[@]}"; do
                prefix=${mode#*|}
                samples["$name|${mode%%|*}"]+="$(median_seconds "$prepare" "${prefix:+$prefix }$command") "
            done
            samples["$name|replay"]+="$(median_seconds "$prepare" "$replay") "
            kept["$name"]=$(system_files)
        done
    done
    echo "| workload | native s | strace -f s | hermit s | record s | replay s | hermit/strace | record/hermit | replay/record | system files kept |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    for workload in "${workloads[@]}"; do
        name=${workload%%|*}
        row="| $name |"
        for mode in native "strace -f" hermit record replay; do
            row+=" $(tr ' ' '\n' <<<"${samples[$name|$mode]}" | grep . | median) |"
        done
        row+=" $(paired_ratio "${samples[$name|hermit]}" "${samples[$name|strace -f]}") |"
        row+=" $(paired_ratio "${samples[$name|record]}" "${samples[$name|hermit]}") |"
        row+=" $(paired_ratio "${samples[$name|replay]}" "${samples[$name|record]}") |"
        row+=" ${kept[$name]} |"
        echo "$row"
    done
    exit 0
fi

header="| workload |"
rule="| --- |"
for mode in "${modes[@]}"; do header+=" ${mode%%|*} s |"; rule+=" ---: |"; done
header+=" hermit/native | hermit/strace | strace-only/strace | record/hermit | replay/record | recording size | recording rate | hermit stops |"
rule+=" ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
echo "$header"
echo "$rule"

for workload in "${workloads[@]}"; do
    IFS='|' read -r name prepare command <<<"$workload"
    row="| $name |"
    declare -A seconds=()
    for mode in "${modes[@]}"; do
        mode_name=${mode%%|*} prefix=${mode#*|}
        echo "timing '$name' ($mode_name)" >&2
        if [[ $mode_name == replay ]]; then
            result=$(median_seconds "$prepare && $record $command >/dev/null 2>&1 && $prepare" "$replay")
        else
            [[ $mode_name != record ]] || rm -rf "$recordings"
            result=$(median_seconds "$prepare" "${prefix:+$prefix }$command")
            [[ $mode_name != record || ! $result =~ ^[0-9.]+$ ]] || size=$(recording_size)
        fi
        seconds[$mode_name]=$result
        row+=" $result |"
    done
    [[ ${seconds[record]} =~ ^[0-9.]+$ ]] || size="-"
    row+=" $(ratio "${seconds[hermit]}" "${seconds[native]}") | $(ratio "${seconds[hermit]}" "${seconds[strace -f]}") |"
    row+=" $(ratio "${seconds[hermit --strace-only]}" "${seconds[strace -f]}") |"
    row+=" $(ratio "${seconds[record]}" "${seconds[hermit]}") | $(ratio "${seconds[replay]}" "${seconds[record]}") |"
    row+=" $size | $(rate "$size" "${seconds[record]}") | $(hermit_stops "$prepare" "$command") |"
    echo "$row"
    unset seconds
done
