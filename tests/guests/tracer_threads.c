// Four threads take turns adding to a shared total under a mutex, the main thread waits for all of them
// with a condition variable and joins them. The printed result is the same however they interleave.
#include <pthread.h>
#include <stdio.h>

enum { kThreads = 4, kRounds = 1000 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t all_done = PTHREAD_COND_INITIALIZER;
static long total;
static int finished;

static void* work(void* argument) {
    long id = (long)argument;
    for (int round = 0; round < kRounds; ++round) {
        pthread_mutex_lock(&lock);
        total += id + 1;
        pthread_mutex_unlock(&lock);
    }
    pthread_mutex_lock(&lock);
    ++finished;
    pthread_cond_signal(&all_done);
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(void) {
    pthread_t threads[kThreads];
    for (long id = 0; id < kThreads; ++id) {
        pthread_create(&threads[id], NULL, work, (void*)id);
    }
    pthread_mutex_lock(&lock);
    while (finished < kThreads) {
        pthread_cond_wait(&all_done, &lock);
    }
    pthread_mutex_unlock(&lock);
    for (int id = 0; id < kThreads; ++id) {
        pthread_join(threads[id], NULL);
    }
    printf("total=%ld finished=%d\n", total, finished);
    return 0;
}
