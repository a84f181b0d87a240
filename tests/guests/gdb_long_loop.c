// Guest for reverse execution over a long stretch without syscalls: a mark before and a mark after a loop
// of a million iterations.
#include <stdio.h>

volatile unsigned long sum = 0;

__attribute__((noinline)) void early_mark(void) {
    sum += 1;
}

__attribute__((noinline)) void late_mark(void) {
    sum += 2;
}

int main(void) {
    early_mark();
    for (unsigned long index = 0; index < 1000000; ++index) {
        sum += index;
    }
    late_mark();
    printf("sum=%lu\n", sum);
    return 0;
}
