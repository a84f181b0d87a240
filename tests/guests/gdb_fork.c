// Guest for the gdb tests of multi-process replays: the child of a fork calls child_work() and exits; the
// parent waits for it. A breakpoint in child_work() belongs to whichever process gdb debugs.
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int shared_value;

__attribute__((noinline)) void child_work(int n) {
    shared_value = n * 2;
    printf("child %d\n", shared_value);
}

int main(void) {
    pid_t child = fork();
    if (child == 0) {
        child_work(21);
        return 0;
    }
    int status;
    waitpid(child, &status, 0);
    printf("parent done %d\n", WEXITSTATUS(status));
    return 0;
}
