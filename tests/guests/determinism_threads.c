// Thread scheduling: four threads race on an unsynchronized counter, print from each thread, take turns on
// a mutex, hand items through a condition variable, meet at a barrier and are joined. Natively the order of
// the lines, the barrier's serial thread and the lost updates change from run to run; under hermit one
// thread runs at a time, switched at scheduling points by a deterministic policy, so all of it is fixed.
#include <pthread.h>
#include <stdio.h>
#include <string.h>

enum { kThreads = 4, kRounds = 40, kRacyIncrements = 200000, kItems = 12 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t item_ready = PTHREAD_COND_INITIALIZER;
static pthread_barrier_t barrier;
static volatile long racy_counter;
static char turn_log[kThreads * kRounds + 1];
static int turns;
static int queue[kItems];
static int queued;

static void* work(void* argument) {
    const int id = (int)(long)argument;
    pthread_barrier_wait(&barrier);
    for (int round = 0; round < kRounds; ++round) {
        for (int step = 0; step < kRacyIncrements / kRounds; ++step) {
            racy_counter = racy_counter + 1; // a lost update natively when two threads overlap
        }
        pthread_mutex_lock(&lock);
        turn_log[turns++] = (char)('a' + id);
        pthread_mutex_unlock(&lock);
    }
    printf("thread %d saw racy=%ld\n", id, racy_counter);
    if (id < 2) { // two producers hand items to the main thread
        for (int item = 0; item < kItems / 2; ++item) {
            pthread_mutex_lock(&lock);
            queue[queued++] = id * 100 + item;
            pthread_cond_signal(&item_ready);
            pthread_mutex_unlock(&lock);
        }
    }
    const int serial = pthread_barrier_wait(&barrier) == PTHREAD_BARRIER_SERIAL_THREAD;
    if (serial) {
        printf("serial thread %d\n", id);
    }
    return (void*)(long)(id * 10);
}

int main(void) {
    pthread_t threads[kThreads];
    pthread_barrier_init(&barrier, NULL, kThreads);
    for (long id = 0; id < kThreads; ++id) {
        pthread_create(&threads[id], NULL, work, (void*)id);
    }
    printf("consumed");
    pthread_mutex_lock(&lock);
    for (int taken = 0; taken < kItems; ++taken) {
        while (queued <= taken) {
            pthread_cond_wait(&item_ready, &lock);
        }
        printf(" %d", queue[taken]);
    }
    pthread_mutex_unlock(&lock);
    printf("\n");
    long joined = 0;
    for (int id = 0; id < kThreads; ++id) {
        void* result = NULL;
        pthread_join(threads[id], &result);
        joined += (long)result;
    }
    printf("turns %s\nracy total %ld of %d, joined %ld\n", turn_log, racy_counter, kThreads * kRacyIncrements,
           joined);
    return 0;
}
