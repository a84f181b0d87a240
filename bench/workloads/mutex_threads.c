// Contended locking: 4 threads each take a shared pthread mutex N times (default 50000), so the
// futex syscalls (scheduling points for hermit) dominate.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static long per_thread;

static void* worker(void* argument) {
    (void)argument;
    for (long i = 0; i < per_thread; ++i) {
        pthread_mutex_lock(&lock);
        ++counter;
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

int main(int argc, char** argv) {
    per_thread = argc > 1 ? atol(argv[1]) : 50000;
    pthread_t threads[4];
    for (int i = 0; i < 4; ++i) {
        pthread_create(&threads[i], NULL, worker, NULL);
    }
    for (int i = 0; i < 4; ++i) {
        pthread_join(threads[i], NULL);
    }
    if (counter != 4 * per_thread) {
        fprintf(stderr, "lost updates: %ld\n", counter);
        return 1;
    }
    return 0;
}
