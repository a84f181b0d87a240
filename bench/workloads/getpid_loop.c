// Syscall-bound, never trapped by hermit's seccomp filter: N raw getpid calls (default 200000).
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char** argv) {
    long count = argc > 1 ? atol(argv[1]) : 200000;
    for (long i = 0; i < count; ++i) {
        syscall(SYS_getpid);
    }
    return 0;
}
