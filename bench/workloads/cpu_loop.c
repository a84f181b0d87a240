// CPU-bound, no syscalls in the loop: N rounds of an xorshift generator (default 600M, about 1 s).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
    long rounds = argc > 1 ? atol(argv[1]) : 600000000L;
    uint64_t state = 88172645463325252ULL;
    for (long i = 0; i < rounds; ++i) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
    }
    printf("%llu\n", (unsigned long long)(state & 0xffff));
    return 0;
}
