// Asks the Virtualizer's clock, random, host and usage questions as raw syscalls (not through the vDSO),
// argv[1] rounds of each, and prints the last answers: hermit answers them all from seccomp notifications,
// so the rounds add no ptrace stop, and every run prints the same.
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/times.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char** argv) {
    const int rounds = argc > 1 ? atoi(argv[1]) : 0;
    struct timespec now = {0}, resolution = {0};
    struct timeval day = {0};
    long seconds = 0;
    unsigned char random[8] = {0};
    struct utsname name;
    struct sysinfo info;
    unsigned long affinity = 0;
    unsigned cpu = 99, node = 99;
    struct tms usage_times;
    struct rusage usage;
    for (int round = 0; round <= rounds; round++) {
        syscall(SYS_clock_gettime, CLOCK_REALTIME, &now);
        syscall(SYS_clock_getres, CLOCK_MONOTONIC, &resolution);
        syscall(SYS_gettimeofday, &day, NULL);
        seconds = syscall(SYS_time, NULL);
        syscall(SYS_getrandom, random, sizeof random, 0);
        syscall(SYS_uname, &name);
        syscall(SYS_sysinfo, &info);
        syscall(SYS_sched_getaffinity, 0, sizeof affinity, &affinity);
        syscall(SYS_getcpu, &cpu, &node, NULL);
        syscall(SYS_times, &usage_times);
        syscall(SYS_getrusage, RUSAGE_SELF, &usage);
    }
    printf("%d rounds: realtime %lld.%09ld resolution %ld day %lld time %ld\n", rounds, (long long)now.tv_sec,
           now.tv_nsec, resolution.tv_nsec, (long long)day.tv_sec, seconds);
    printf("random %02x%02x%02x%02x%02x%02x%02x%02x nodename %s procs %d affinity %lx cpu %u node %u\n",
           random[0], random[1], random[2], random[3], random[4], random[5], random[6], random[7],
           name.nodename, info.procs, affinity, cpu, node);
    return 0;
}
