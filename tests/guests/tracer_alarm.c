// alarm(2)+pause(2) and a periodic setitimer(ITIMER_REAL): under hermit they run on the virtual clock, so
// the alarm arrives after exactly 2000 virtual ms at once, and the ticks fall at the same points every run.
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
static volatile int ticks = 0;
static void on_alarm(int s) {
    (void)s;
    ticks++;
}
int main(void) {
    signal(SIGALRM, on_alarm);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    alarm(2);
    pause();
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("alarm after %ld ms, ticks=%d\n",
           (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000, ticks);
    struct itimerval v = {{0, 10000}, {0, 10000}};
    setitimer(ITIMER_REAL, &v, NULL);
    long loops = 0;
    while (ticks < 6) {
        getppid();
        usleep(3000);
        loops++;
    }
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    printf("ticks=%d loops=%ld\n", ticks, loops);
    return 0;
}
