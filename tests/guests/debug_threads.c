// Guest for the gdb integration tests: three threads, one after the other, that each call worker_step() and
// write the global shared_counter a few times, after one step of the
// main thread; then the main thread prints the total.
#include <pthread.h>
#include <stdio.h>

enum { kThreads = 3, kStepsPerThread = 2 };

volatile int shared_counter = 0;
static pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline)) void worker_step(int step) {
    pthread_mutex_lock(&counter_lock);
    shared_counter = shared_counter + step + 1;
    pthread_mutex_unlock(&counter_lock);
}

static void* worker(void* argument) {
    (void)argument;
    for (int step = 0; step < kStepsPerThread; ++step) {
        worker_step(step);
    }
    return NULL;
}

int main(void) {
    pthread_t threads[kThreads];
    worker_step(0); // a first step in the main thread, before any other thread exists
    // One worker at a time: the values gdb sees at each stop do not depend on the schedule.
    for (int i = 0; i < kThreads; ++i) {
        pthread_create(&threads[i], NULL, worker, NULL);
        pthread_join(threads[i], NULL);
    }
    printf("shared_counter=%d\n", shared_counter);
    return 0;
}
