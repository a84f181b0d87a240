#!/usr/bin/env bash
# The compatibility matrix: real programs and workflows under hermit, each tried four ways: `hermit run`
# twice (same output and status both times), `hermit run --verify`, and `hermit record start` then
# `hermit replay --autopilot` (the replay's output and status must be the recording's). Writes the
# table to docs/COMPATIBILITY.md (or --out FILE) with the exact commands, the results, and hermit's run
# time against the native one; a row that fails names the first line hermit said about it.
#
#   scripts/compat-matrix.sh [--quick] [--out FILE] [--hermit PATH]
#
# --quick: only the rows marked quick (what CI runs; they need only scripts/install-deps.sh). The other
# rows need the programs `scripts/install-deps.sh --compat` adds (Node.js, a JVM); a program that is not
# installed is listed as such. Exit status: 0 when every row that ran passed, 1 otherwise.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
hermit="$root/build/hermit"
out="$root/docs/COMPATIBILITY.md"
quick=0
while (($#)); do
  case "$1" in
    --quick) quick=1 ;;
    --out) out=$2; shift ;;
    --hermit) hermit=$2; shift ;;
    *) echo "usage: $0 [--quick] [--out FILE] [--hermit PATH]" >&2; exit 2 ;;
  esac
  shift
done
hermit=$(realpath "$hermit")
work=$(mktemp -d /tmp/hermit-compat.XXXXXX)
trap 'rm -rf "$work"' EXIT
export HERMIT_DATA_DIR="$work/recordings"
limit=300 # seconds a single run may take before it counts as a hang

# name | needs (programs) | quick (1/0) | command, run by sh in a fresh directory made by setup_<name>
rows=(
  "python3 arithmetic|python3|1|python3 -c 'print(sum(i * i for i in range(10**6)))'"
  "python3 imports (json, email, decimal)|python3|1|python3 -c 'import json, email.parser, decimal; print(json.dumps({\"d\": str(decimal.Decimal(1) / 7)}))'"
  "python3 threads and a lock|python3|1|python3 threads.py"
  "python3 multiprocessing pool|python3|0|python3 pool.py"
  "python3 sqlite3 module|python3|0|python3 -c 'import sqlite3; c = sqlite3.connect(\":memory:\"); c.execute(\"create table t(x)\"); c.executemany(\"insert into t values (?)\", [(i,) for i in range(1000)]); print(c.execute(\"select sum(x) from t\").fetchone()[0])'"
  "python3 HTTP server and client (loopback)|python3|1|python3 http_pair.py"
  "python3 2 GB allocation|python3|0|python3 -c 'b = bytearray(2 * 1024**3); b[-1] = 1; print(len(b), sum(b[-10:]))'"
  "python3 random, uuid, time|python3|0|python3 -c 'import random, uuid, time; print(random.random(), uuid.uuid4(), time.time() > 0)'"
  "perl hash and regex|perl|1|perl -e 'my %h; \$h{\$_} = \$_ * 2 for 1 .. 100000; my \$n = grep { /7/ } keys %h; print scalar(keys %h), \" \$n\\n\"'"
  "node|node|0|node -e 'let s = 0; for (let i = 0; i < 1e6; i++) s += i; console.log(s, [3, 1, 2].sort().join())'"
  "java (JVM)|java javac|0|java -cp . Hello"
  "sqlite3 shell with a script|sqlite3|1|sqlite3 test.db < script.sql"
  "git init, add, commit, log|git|1|git init -q repo && cd repo && git config user.email a@b.c && git config user.name n && echo hi > f && git add f && git commit -qm first && git log --format=%s && git status --short | wc -l"
  "make + gcc build and run|make gcc|1|make -s && ./hello"
  "g++ C++ build and run|g++|0|g++ -O1 -o sort sort.cc && ./sort"
  "cmake + ninja C++ project|cmake ninja g++|0|cmake -S proj -B build -G Ninja > /dev/null && cmake --build build > /dev/null && ./build/app"
  "tar + gzip pipeline|tar gzip|1|tar czf - -C /usr/include stdio.h stdlib.h string.h | tar tzf - | sort"
  "xz round trip|xz|0|head -c 3000000 /usr/bin/gcc | xz -T1 | xz -d | cksum"
  "zstd round trip|zstd|0|head -c 3000000 /usr/bin/gcc | zstd -q | zstd -dq | cksum"
  "bzip2 round trip|bzip2|0|head -c 1000000 /usr/bin/gcc | bzip2 | bzip2 -d | cksum"
  "bash jobs and a pipeline|bash|1|bash -c 'for i in 3 1 2; do echo \$i & done; wait' | sort && bash -c 'seq 100000 | grep 7 | wc -l'"
  "coreutils sort, uniq, awk|awk sort|1|seq 1 50000 | awk '{ print \$1 % 97 }' | sort -n | uniq -c | sort -rn | head -3"
  "find and ls of a system tree|find|1|find /usr/include -name 'std*.h' | sort | head -3 && ls -la /usr/include | wc -l"
  "openssl digest and random|openssl|0|openssl dgst -sha256 -r /etc/os-release | cut -c1-16 && openssl rand -hex 8 | wc -c"
  "ssh-keygen ed25519 key|ssh-keygen|0|ssh-keygen -q -t ed25519 -N '' -f key && ssh-keygen -l -f key.pub | cut -d' ' -f1"
  "curl against a local server|curl python3|0|python3 -m http.server 8765 --bind 127.0.0.1 > /dev/null 2>&1 & until curl -s -o /dev/null http://127.0.0.1:8765/; do :; done; curl -s http://127.0.0.1:8765/hello.txt; kill \$!"
  "jq|jq|0|echo '{\"a\": [1, 2, 3], \"b\": {\"c\": \"d\"}}' | jq -c '{sum: (.a | add), c: .b.c}'"
  "bc arbitrary precision|bc|0|echo '2^200; scale=30; 4*a(1)' | bc -l"
  "diff and patch|diff patch|1|seq 1 20 > a && seq 1 21 | sed 's/5/five/' > b; diff -u a b > p; patch -s a < p && cmp a b && echo patched"
  "file (libmagic)|file|0|file -b /bin/sh /etc/os-release"
  "date and time zones|date|1|date -u +%Y && TZ=Asia/Tokyo date +%Z"
  "sha256sum of many files|sha256sum|1|find /usr/include -maxdepth 1 -name '*.h' | sort | head -200 | xargs sha256sum | sha256sum | cut -c1-16"
)

setup() {
  case "$1" in
    "python3 threads and a lock")
      cat > threads.py <<'EOF'
import threading
total = 0
lock = threading.Lock()
def add():
    global total
    for _ in range(20000):
        with lock:
            total += 1
workers = [threading.Thread(target=add) for _ in range(4)]
for w in workers: w.start()
for w in workers: w.join()
print(total)
EOF
      ;;
    "python3 multiprocessing pool")
      cat > pool.py <<'EOF'
import multiprocessing as mp
def square(x):
    return x * x
if __name__ == '__main__':
    with mp.Pool(2) as pool:
        print(sum(pool.map(square, range(1000))))
EOF
      ;;
    "python3 HTTP server and client (loopback)")
      cat > http_pair.py <<'EOF'
import http.server, threading, urllib.request
class Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = ("hello " + self.path).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hello)
threading.Thread(target=server.serve_forever, daemon=True).start()
for path in ("/a", "/b"):
    print(urllib.request.urlopen("http://127.0.0.1:%d%s" % (server.server_port, path)).read().decode())
server.shutdown()
EOF
      ;;
    "java (JVM)")
      printf 'public class Hello { public static void main(String[] a) { long s = 0; for (int i = 0; i < 1000000; i++) s += i; System.out.println("hello " + s); } }\n' > Hello.java
      javac Hello.java
      ;;
    "sqlite3 shell with a script")
      printf 'create table t(x integer, y text);\nwith recursive c(i) as (select 1 union all select i + 1 from c where i < 1000) insert into t select i, hex(i) from c;\nselect count(*), sum(x), max(y) from t;\n' > script.sql
      ;;
    "make + gcc build and run")
      printf '#include <stdio.h>\nint main(void) { printf("hello from make\\n"); return 0; }\n' > hello.c
      printf 'hello: hello.c\n\tgcc -O1 -o hello hello.c\n' > Makefile
      ;;
    "g++ C++ build and run")
      printf '#include <algorithm>\n#include <iostream>\n#include <vector>\nint main() { std::vector<int> v; for (int i = 0; i < 100000; ++i) v.push_back((i * 7919) %% 100003); std::sort(v.begin(), v.end()); std::cout << v[500] << "\\n"; }\n' > sort.cc
      ;;
    "cmake + ninja C++ project")
      mkdir -p proj
      printf 'cmake_minimum_required(VERSION 3.16)\nproject(app CXX)\nadd_executable(app main.cc)\n' > proj/CMakeLists.txt
      printf '#include <iostream>\nint main() { std::cout << "built by cmake\\n"; }\n' > proj/main.cc
      ;;
    "curl against a local server")
      echo "served over loopback" > hello.txt
      ;;
  esac
}

# Runs sh -c "$command" with a mode's prefix in a fresh copy of the row's directory; sets seconds, status.
run_mode() {
  local directory=$1 output=$2 command=$3
  shift 3
  rm -rf "$directory" && mkdir -p "$directory" && (cd "$directory" && setup "$name" > /dev/null 2>&1)
  local start end
  start=$(date +%s.%N)
  (cd "$directory" && timeout -k 5 "$limit" "$@" sh -c "$command" > "$output.out" 2> "$output.err" < /dev/null)
  status=$?
  end=$(date +%s.%N)
  seconds=$(echo "$end - $start" | bc)
}

# hermit's first error line, or the first differing line.
why() {
  grep -m1 -E 'error\[E[0-9]+\]|diverged|verify:' "$1" 2>/dev/null | sed 's/|/\\|/g' | cut -c1-160
}

passed=0
failed=0
table=""
for row in "${rows[@]}"; do
  IFS='|' read -r name needs is_quick command <<< "$row"
  if ((quick)) && [[ $is_quick != 1 ]]; then
    continue
  fi
  missing=""
  for program in $needs; do
    command -v "$program" > /dev/null || missing="$missing $program"
  done
  shown_command=$(printf '%s' "$command" | sed 's/|/\\|/g')
  if [[ -n $missing ]]; then
    table+="| $name | \`$shown_command\` | not installed:$missing | | | | |"$'\n'
    continue
  fi
  dir="$work/case"
  run_mode "$dir" "$work/native" "$command"
  native_status=$status native_seconds=$seconds
  run_mode "$dir" "$work/run1" "$command" "$hermit" run --
  run1_status=$status run1_seconds=$seconds
  run_mode "$dir" "$work/run2" "$command" "$hermit" run --
  if [[ $run1_status == "$status" ]] && cmp -s "$work/run1.out" "$work/run2.out"; then
    runs="same ($run1_status)"
  else
    runs="**differ** ($run1_status, $status) $(why "$work/run2.err")"
  fi
  [[ $run1_status == 124 || $run1_status == 137 ]] && runs="**hang** (over ${limit}s)"
  run_mode "$dir" "$work/verify" "$command" "$hermit" run --verify --
  if [[ $status == "$run1_status" ]] && grep -q 'verify: identical' "$work/verify.err"; then
    verify="identical"
  else
    verify="**failed** ($status) $(why "$work/verify.err")"
  fi
  rm -rf "$HERMIT_DATA_DIR"
  run_mode "$dir" "$work/record" "$command" "$hermit" record start --
  record_status=$status
  (cd / && timeout -k 5 "$limit" "$hermit" replay --autopilot > "$work/replay.out" 2> "$work/replay.err" < /dev/null)
  replay_status=$?
  if [[ $replay_status == "$record_status" ]] && cmp -s "$work/record.out" "$work/replay.out"; then
    replay="same ($record_status)"
  else
    replay="**failed** ($record_status, $replay_status) $(why "$work/replay.err")"
  fi
  ratio=$(echo "scale=1; $run1_seconds / ($native_seconds + 0.0005)" | bc)
  times=$(printf '%.2f / %.2f s (%sx)' "$run1_seconds" "$native_seconds" "$ratio")
  if [[ $runs == same* && $verify == identical && $replay == same* ]]; then
    passed=$((passed + 1))
    result="pass"
  else
    failed=$((failed + 1))
    result="**FAIL**"
  fi
  table+="| $name | \`$shown_command\` | $result | $runs | $verify | $replay | $times |"$'\n'
  echo "$result: $name" >&2
done

{
  echo "# Compatibility matrix"
  echo
  echo "Generated by \`scripts/compat-matrix.sh$( ((quick)) && echo ' --quick')\` on $(date -u +%Y-%m-%d) ($(uname -r), $(nproc) CPUs):"
  echo "$passed passed, $failed failed. Each program runs in a fresh directory: \`hermit run\` twice"
  echo "(output and status compared), \`hermit run --verify\`, and \`hermit record start\` then \`hermit replay"
  echo "--autopilot\` from \`/\` (output and status compared with the recording's). Times are hermit run against"
  echo "native, one run each, on a shared VM: a guide, not a benchmark (bench/ measures). A failing row names"
  echo "the first error hermit printed."
  echo
  echo "| Program | Command | Result | run twice | --verify | record + replay | hermit run / native |"
  echo "|---|---|---|---|---|---|---|"
  printf '%s' "$table"
  cat <<'END'

Known not to work yet, outside the rows above (docs/USER_GUIDE.md, "Limitations", and the open issues):
- A program that computes without system calls is not preempted (no PMU here): Ctrl-C reaches it at
  its next system call (a second Ctrl-C ends the run), and a spin-wait on another thread's write waits
  for the spinner's next system call.
- FUTEX_REQUEUE and FUTEX_WAKE_OP do not reach waiters hermit holds parked: a program built on them
  (glibc's condition variables before 2.25, some runtimes) can hang. glibc 2.36's do not use them.
- 32-bit programs are refused (E006; one the guest executes is killed at its exec), and a 64-bit
  program's `int 0x80` gets ENOSYS.
END
} > "$out"
echo "$passed passed, $failed failed; table in $out" >&2
((failed == 0))
