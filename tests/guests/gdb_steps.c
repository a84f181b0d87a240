// Guest for the single-threaded gdb tests: a function called a few times that updates a global, with a
// system call between the calls, so breakpoints, watchpoints and reverse execution have several stops.
#include <stdio.h>
#include <unistd.h>

volatile long total = 0;

__attribute__((noinline)) long add_square(long value) {
    long square = value * value;
    total = total + square;
    return square;
}

int main(void) {
    for (long value = 1; value <= 4; ++value) {
        long square = add_square(value);
        printf("square %ld = %ld\n", value, square);
        fflush(stdout);
        getpid();
    }
    printf("total=%ld\n", total);
    return 0;
}
