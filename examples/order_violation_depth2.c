// A bug of depth 2: it shows only when thread B's check falls after thread A's first step AND before A's
// second step, two ordering constraints at once. Both threads make many scheduling points (sched_yield)
// around their steps, so a uniformly random schedule almost never lands B's check inside A's short
// window, while PCT with depth 2 needs only one well-placed priority change point inside the window.
// Round-robin alternates the threads, B finishes its longer run-up after A's window, and the run passes.
//
//   hermit search --seeds=1..1000 --sched-heuristic=random -- ./order_violation_depth2  # rarely fails
//   hermit search --seeds=1..1000 --sched-heuristic=pct --pct-depth=2 -- ./order_violation_depth2
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

enum { A_RUN_UP = 100, A_WINDOW = 20, B_RUN_UP = 200 };

static volatile int a_started = 0;
static volatile int a_finished = 0;
static volatile int b_saw_half_update = 0;

static void yield_times(int count) {
    for (int index = 0; index < count; ++index) {
        sched_yield();
    }
}

static void* thread_a(void* unused) {
    (void)unused;
    yield_times(A_RUN_UP);
    a_started = 1;
    yield_times(A_WINDOW);
    a_finished = 1;
    return NULL;
}

static void* thread_b(void* unused) {
    (void)unused;
    yield_times(B_RUN_UP);
    if (a_started && !a_finished) {
        b_saw_half_update = 1;
    }
    return NULL;
}

int main(void) {
    pthread_t a, b;
    pthread_create(&a, NULL, thread_a, NULL);
    pthread_create(&b, NULL, thread_b, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    if (b_saw_half_update) {
        printf("ERROR! thread B ran inside thread A's update window.\n");
        return 1;
    }
    printf("ok\n");
    return 0;
}
