// The main thread blocks reading a pipe (a syscall the tracer does not trap) while a second thread,
// which can only run if the tracer notices the block, writes to it.
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int fds[2];

static void* writer(void* unused) {
    (void)unused;
    const char message[] = "through the pipe";
    write(fds[1], message, sizeof message);
    return NULL;
}

int main(void) {
    if (pipe(fds) != 0) {
        return 1;
    }
    pthread_t thread;
    pthread_create(&thread, NULL, writer, NULL);
    char buffer[64] = {0};
    ssize_t count = read(fds[0], buffer, sizeof buffer);
    pthread_join(thread, NULL);
    printf("read %zd: %s\n", count, buffer);
    return 0;
}
