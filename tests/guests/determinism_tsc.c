// Time stamp counter: rdtsc and rdtscp around a clock read and a sleep. Natively they read the host's
// counter; under hermit, on a host that traps rdtsc, they read a virtual counter that follows the virtual
// clock. Apart from determinism_time so that a host without rdtsc trapping skips only this guest's test.
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

int main(void) {
    unsigned int aux = 0;
    const unsigned long long first = __rdtsc();
    const unsigned long long with_processor = __rdtscp(&aux);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    usleep(1000);
    const unsigned long long after_sleep = __rdtsc();
    printf("rdtsc %llu rdtscp %llu aux %u\n", first, with_processor, aux);
    printf("after sleep %llu, %s\n", after_sleep, after_sleep > with_processor ? "later" : "not later");
    return 0;
}
