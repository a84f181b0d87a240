// 200000 getpid calls: a syscall the tracer does not trap, so it must run at native speed.
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void) {
    long sum = 0;
    for (int index = 0; index < 200000; ++index) {
        sum += syscall(SYS_getpid) > 0;
    }
    printf("%ld\n", sum);
    return 0;
}
