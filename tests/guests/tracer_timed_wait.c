// A poll with a timeout on an empty pipe, and pthread_cond_timedwait in a loop until a producer thread
// signals: under hermit the timeouts elapse on the virtual clock (exactly 50 ms for the poll).
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int ready = 0;
static void* producer(void* a) {
    (void)a;
    usleep(30000);
    pthread_mutex_lock(&m);
    ready = 1;
    pthread_cond_signal(&c);
    pthread_mutex_unlock(&m);
    return NULL;
}
int main(void) {
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int fds[2];
    pipe(fds);
    struct pollfd p = {fds[0], POLLIN, 0};
    int r = poll(&p, 1, 50);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("poll=%d after %ld ms\n", r, (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000);
    pthread_t th;
    pthread_create(&th, NULL, producer, NULL);
    int timeouts = 0;
    pthread_mutex_lock(&m);
    while (!ready) {
        struct timespec deadline;
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_nsec += 10000000;
        if (deadline.tv_nsec >= 1000000000) {
            deadline.tv_sec++;
            deadline.tv_nsec -= 1000000000;
        }
        if (pthread_cond_timedwait(&c, &m, &deadline) != 0)
            timeouts++;
    }
    pthread_mutex_unlock(&m);
    pthread_join(th, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("timeouts=%d total %ld ms\n", timeouts,
           (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000);
    return 0;
}
