// Guest for crash-first debugging: a global computed through calls, printed, then a NULL dereference in a
// function of its own, so gdb can stop at the crash, show where it is and go back to the global's writes.
#include <stdio.h>

volatile long result = 0;

__attribute__((noinline)) long add(long left, long right) {
    return left + right;
}

__attribute__((noinline)) void accumulate(long value) {
    result = add(result, value);
}

__attribute__((noinline)) void store_result(volatile long* where) {
    *where = result;
}

int main(void) {
    accumulate(3);
    accumulate(4);
    accumulate(5);
    printf("result=%ld\n", result);
    fflush(stdout);
    store_result(NULL);
    return 0;
}
