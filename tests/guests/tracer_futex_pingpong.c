// Two threads hand a turn back and forth through raw futex wait/wake, 200 times each way.
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { kExchanges = 200 };

static atomic_int turn; // 0: ping's turn, 1: pong's turn

static void wait_for(int wanted) {
    int seen;
    while ((seen = atomic_load(&turn)) != wanted) {
        syscall(SYS_futex, &turn, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
    }
}

static void hand_to(int next) {
    atomic_store(&turn, next);
    syscall(SYS_futex, &turn, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void* pong(void* unused) {
    (void)unused;
    for (int exchange = 0; exchange < kExchanges; ++exchange) {
        wait_for(1);
        hand_to(0);
    }
    return NULL;
}

int main(void) {
    pthread_t thread;
    pthread_create(&thread, NULL, pong, NULL);
    for (int exchange = 0; exchange < kExchanges; ++exchange) {
        wait_for(0);
        hand_to(1);
    }
    pthread_join(thread, NULL);
    printf("pingpong done %d\n", kExchanges);
    return 0;
}
