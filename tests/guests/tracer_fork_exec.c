// fork + exec + pipe: the child execs `echo` with its stdout on a pipe; the parent reads it and reaps.
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
    int fds[2];
    if (pipe(fds) != 0) {
        return 1;
    }
    pid_t child = fork();
    if (child == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execlp("echo", "echo", "hello from the child", (char*)NULL);
        _exit(127);
    }
    close(fds[1]);
    char buffer[128] = {0};
    size_t used = 0;
    ssize_t count;
    while ((count = read(fds[0], buffer + used, sizeof buffer - 1 - used)) > 0) {
        used += (size_t)count;
    }
    int status = 0;
    waitpid(child, &status, 0);
    printf("parent got: %s", buffer);
    printf("child status %d\n", WEXITSTATUS(status));
    return 0;
}
