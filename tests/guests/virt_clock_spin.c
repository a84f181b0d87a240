// Reads the clocks through the vDSO (glibc's clock_gettime) argv[1] times, spins until CLOCK_MONOTONIC
// has advanced by 1 ms, sleeps 2 s, and prints what it saw: under hermit the values are identical in
// every run, the spin ends, and the sleep shows in the clock.
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long ns(clockid_t clock) {
    struct timespec now;
    if (clock_gettime(clock, &now) != 0) {
        return -errno;
    }
    return now.tv_sec * 1000000000LL + now.tv_nsec;
}

int main(int argc, char** argv) {
    const long calls = argc > 1 ? atol(argv[1]) : 0;
    const long long first = ns(CLOCK_MONOTONIC);
    long long last = first;
    for (long call = 0; call < calls; call++) {
        const long long now = ns(CLOCK_MONOTONIC);
        if (now <= last) {
            printf("monotonic went from %lld to %lld\n", last, now);
            return 1;
        }
        last = now;
    }
    long spins = 0;
    while (ns(CLOCK_MONOTONIC) - last < 1000000) {
        spins++;
    }
    printf("%ld calls, then %ld spins for 1 ms\n", calls, spins);
    printf("monotonic %lld realtime %lld boottime %lld tai %lld cputime %lld\n", ns(CLOCK_MONOTONIC),
           ns(CLOCK_REALTIME), ns(CLOCK_BOOTTIME), ns(CLOCK_TAI), ns(CLOCK_PROCESS_CPUTIME_ID));
    printf("invalid clock %lld\n", ns(10));
    const long long before = ns(CLOCK_MONOTONIC);
    sleep(2);
    const long long after = ns(CLOCK_MONOTONIC);
    printf("slept %s\n", after - before >= 2000000000LL ? "2 s or more" : "less than 2 s");
    printf("monotonic after the sleep %lld\n", after);
    return 0;
}
