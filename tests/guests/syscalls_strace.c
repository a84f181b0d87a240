// Guest for the strace printer: a failing open, writes from two threads, a pipe, and a known exit code.
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int null_fd;

static void* thread_main(void* argument) {
    (void)argument;
    write(null_fd, "from the thread\n", 16);
    return NULL;
}

int main(void) {
    open("/nonexistent-hermit-strace", O_RDONLY);
    null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    write(null_fd, "hello\n", 6);
    int fds[2];
    pipe2(fds, O_CLOEXEC);
    write(fds[1], "ab\0c", 4);
    char buffer[8];
    read(fds[0], buffer, sizeof buffer);
    pthread_t thread;
    pthread_create(&thread, NULL, thread_main, NULL);
    pthread_join(thread, NULL);
    syscall(SYS_exit_group, 3);
    return 0;
}
