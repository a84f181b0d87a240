// Guest for thread-local variables under gdb: errno and a __thread variable hold other values in each of
// two threads when the worker reaches its mark.
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

__thread long per_thread = 7;

__attribute__((noinline)) void worker_mark(void) {
    __asm__ volatile("" ::: "memory");
}

static void* worker(void* argument) {
    per_thread = 99;
    errno = 33;
    worker_mark();
    return argument;
}

int main(void) {
    errno = 11;
    pthread_t thread;
    pthread_create(&thread, NULL, worker, NULL);
    pthread_join(thread, NULL);
    printf("%ld\n", per_thread);
    return 0;
}
