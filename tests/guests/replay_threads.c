// Four threads append to a shared log under a mutex and sleep; the interleaving depends on the schedule,
// so record and replay agree only if replay follows the recorded schedule.
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

enum { kThreads = 4, kRounds = 5 };

static pthread_mutex_t log_mutex = PTHREAD_MUTEX_INITIALIZER;
static char log_text[kThreads * kRounds * 8 + 1];

static void* worker(void* argument) {
    long index = (long)argument;
    for (int round = 0; round < kRounds; round++) {
        pthread_mutex_lock(&log_mutex);
        size_t used = strlen(log_text);
        log_text[used] = (char)('a' + index);
        pthread_mutex_unlock(&log_mutex);
        struct timespec pause = {0, 1000000 * (index + 1)};
        nanosleep(&pause, NULL);
    }
    return NULL;
}

int main(void) {
    pthread_t threads[kThreads];
    for (long i = 0; i < kThreads; i++) {
        pthread_create(&threads[i], NULL, worker, (void*)i);
    }
    for (int i = 0; i < kThreads; i++) {
        pthread_join(threads[i], NULL);
    }
    printf("order %s\n", log_text);
    return 0;
}
