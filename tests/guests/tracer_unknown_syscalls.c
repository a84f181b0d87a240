// Guest that probes for syscalls as programs do: numbers the kernel does not have, an x32 number and
// syscall(-1) must fail with ENOSYS and leave the program running.
#include <errno.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static void probe(const char* name, long number) {
    errno = 0;
    const long result = syscall(number);
    printf("%s = %ld errno %d\n", name, result, errno);
}

int main(void) {
    probe("syscall(-1)", -1);
    probe("x32 getpid", 0x40000000L | SYS_getpid);
    probe("syscall(1000)", 1000);
    printf("still running\n");
    return 0;
}
