// Guest for the gdb test of a child sharing the debugged process's memory: the vfork child runs
// record_value() (where gdb's breakpoint for the parent is) before it exits; then the parent calls it too.
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

volatile int recorded_value;

__attribute__((noinline)) void record_value(int value) {
    recorded_value = value;
}

int main(void) {
    pid_t child = vfork();
    if (child == 0) {
        record_value(21);
        _exit(3);
    }
    int status;
    waitpid(child, &status, 0);
    record_value(5);
    printf("parent done %d %d\n", WEXITSTATUS(status), recorded_value);
    return 0;
}
