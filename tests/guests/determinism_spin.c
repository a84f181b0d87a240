// A thread that spins without syscalls while another waits for the run token: natively the spinner sees the
// other thread's flag within a millisecond; under hermit without a PMU nothing can preempt it, so it spins
// on, and hermit must report it (once, naming the thread) instead of hanging silently.
#include <pthread.h>
#include <stdio.h>
#include <time.h>

static volatile int flag;

static void* setter(void* unused) {
    (void)unused;
    struct timespec moment = {0, 1000000};
    nanosleep(&moment, NULL); // a scheduling point: the main thread gets the token and starts spinning
    flag = 1;
    return NULL;
}

int main(void) {
    pthread_t thread;
    pthread_create(&thread, NULL, setter, NULL);
    while (!flag) {
    }
    pthread_join(thread, NULL);
    printf("flag seen\n");
    return 0;
}
