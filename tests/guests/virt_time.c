// Prints every host- and time-dependent value the Virtualizer controls, one per line, so two runs can be
// compared: natively they differ, under hermit they must be identical, and --seed changes the random ones.
#define _GNU_SOURCE
#include <cpuid.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static void print_clock(const char* name, clockid_t clock) {
    struct timespec now;
    if (clock_gettime(clock, &now) == 0) {
        printf("%s %lld.%09ld\n", name, (long long)now.tv_sec, now.tv_nsec);
    } else {
        printf("%s error\n", name);
    }
}

static void print_hex(const char* name, const unsigned char* bytes, size_t length) {
    printf("%s ", name);
    for (size_t i = 0; i < length; ++i) {
        printf("%02x", bytes[i]);
    }
    printf("\n");
}

int main(int argc, char** argv) {
    print_clock("realtime", CLOCK_REALTIME);
    print_clock("monotonic", CLOCK_MONOTONIC);
    print_clock("monotonic_raw", CLOCK_MONOTONIC_RAW);
    print_clock("boottime", CLOCK_BOOTTIME);
    print_clock("realtime_coarse", CLOCK_REALTIME_COARSE);
    print_clock("monotonic_coarse", CLOCK_MONOTONIC_COARSE);
    print_clock("process_cputime", CLOCK_PROCESS_CPUTIME_ID);
    print_clock("thread_cputime", CLOCK_THREAD_CPUTIME_ID);

    struct timeval tv;
    gettimeofday(&tv, NULL);
    printf("gettimeofday %lld.%06ld\n", (long long)tv.tv_sec, (long)tv.tv_usec);
    printf("time %lld\n", (long long)time(NULL));

    unsigned int eax, ebx, ecx, edx;
    __cpuid(1, eax, ebx, ecx, edx);
    printf("cpuid1_ecx %08x\n", ecx);

    unsigned char random_bytes[16];
    if (getrandom(random_bytes, sizeof random_bytes, 0) != (ssize_t)sizeof random_bytes) {
        return 1;
    }
    print_hex("getrandom", random_bytes, sizeof random_bytes);

    unsigned char urandom[8] = {0};
    int fd = open("/dev/urandom", O_RDONLY);
    if (fd < 0 || read(fd, urandom, sizeof urandom) != (ssize_t)sizeof urandom) {
        return 2;
    }
    close(fd);
    print_hex("urandom", urandom, sizeof urandom);
    print_hex("at_random", (const unsigned char*)getauxval(AT_RANDOM), 16);

    void* heap = malloc(100);
    int local = 0;
    printf("malloc %p\n", heap);
    printf("stack %p\n", (void*)&local);
    free(heap);

    struct stat status;
    if (stat(argc > 1 ? argv[1] : argv[0], &status) != 0) {
        return 3;
    }
    printf("stat_mtime %lld ino %llu dev %llu\n", (long long)status.st_mtime,
           (unsigned long long)status.st_ino, (unsigned long long)status.st_dev);

    struct utsname name;
    uname(&name);
    printf("nodename %s release %s\n", name.nodename, name.release);

    cpu_set_t cpus;
    sched_getaffinity(0, sizeof cpus, &cpus);
    printf("affinity %d\n", CPU_COUNT(&cpus));
    printf("nprocs %ld\n", sysconf(_SC_NPROCESSORS_ONLN));
    return 0;
}
