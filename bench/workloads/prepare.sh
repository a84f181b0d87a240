#!/usr/bin/env bash
# Builds the benchmark programs and generates their inputs in WORK_DIR (see bench/run.sh).
# Usage: prepare.sh WORK_DIR
set -euo pipefail
work=$1
here=$(cd "$(dirname "$0")" && pwd)

for program in getpid_loop write_loop cpu_loop; do
    cc -O2 -o "$work/$program" "$here/$program.c"
done
cc -O2 -pthread -o "$work/mutex_threads" "$here/mutex_threads.c"

# sqlite3: 50k rows inserted in one transaction.
awk 'BEGIN {
    print "CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT, price REAL);"
    print "BEGIN;"
    for (i = 0; i < 50000; i++) printf "INSERT INTO items(name, price) VALUES (\"item-%d\", %d.25);\n", i, i % 977
    print "COMMIT;"
}' >"$work/inserts.sql"

# git add: about 300 generated files in a few directories.
mkdir -p "$work/repo"
for i in $(seq 1 300); do
    directory="$work/repo/dir$((i % 10))"
    mkdir -p "$directory"
    seq "$i" $((i + 200)) >"$directory/file$i.txt"
done

# make -j2: a small C project of 20 sources.
mkdir -p "$work/project"
for i in $(seq 1 19); do
    cat >"$work/project/unit$i.c" <<UNIT
#include <stdio.h>
int unit$i(int x) {
    int total = 0;
    for (int k = 0; k < x; ++k) total += (k * $i) % 7;
    return total;
}
void print_unit$i(void) { printf("unit$i %d\n", unit$i(100)); }
UNIT
done
{
    echo '#include <stdio.h>'
    for i in $(seq 1 19); do echo "void print_unit$i(void);"; done
    echo 'int main(void) {'
    for i in $(seq 1 19); do echo "    print_unit$i();"; done
    echo '    return 0;'
    echo '}'
} >"$work/project/main.c"
cat >"$work/project/Makefile" <<'MAKEFILE'
SOURCES := $(wildcard *.c)
OBJECTS := $(SOURCES:.c=.o)
program: $(OBJECTS)
	$(CC) -o $@ $(OBJECTS)
%.o: %.c
	$(CC) -O1 -c -o $@ $<
clean:
	rm -f program $(OBJECTS)
.PHONY: clean
MAKEFILE

# sort: about 5 MB of pseudo-random lines (fixed seed, so every run sorts the same input).
awk 'BEGIN { srand(42); for (i = 0; i < 250000; i++) printf "%08x %d line\n", int(rand() * 4294967295), i }' \
    >"$work/lines.txt"
