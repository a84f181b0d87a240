// Time: every clock (through the vDSO and as a raw syscall), gettimeofday, time, long sleeps, a POSIX
// timer, CPU-time interval timers, times, getrusage, sysinfo and /proc/uptime (rdtsc is determinism_tsc's).
// Natively all of them follow the host's clock; under hermit they read the virtual clock, which starts at
// the epoch and advances only with the guest's own events and sleeps (the sleeps below return at once).
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/times.h>
#include <time.h>
#include <unistd.h>

static const struct {
    const char* name;
    clockid_t id;
} kClocks[] = {
    {"realtime", CLOCK_REALTIME},
    {"monotonic", CLOCK_MONOTONIC},
    {"process_cputime", CLOCK_PROCESS_CPUTIME_ID},
    {"thread_cputime", CLOCK_THREAD_CPUTIME_ID},
    {"monotonic_raw", CLOCK_MONOTONIC_RAW},
    {"realtime_coarse", CLOCK_REALTIME_COARSE},
    {"monotonic_coarse", CLOCK_MONOTONIC_COARSE},
    {"boottime", CLOCK_BOOTTIME},
    {"realtime_alarm", CLOCK_REALTIME_ALARM},
    {"boottime_alarm", CLOCK_BOOTTIME_ALARM},
    {"tai", CLOCK_TAI},
};

static volatile sig_atomic_t timer_signals;

static void on_timer(int signal_number, siginfo_t* info, void* context) {
    (void)signal_number;
    (void)context;
    if (info->si_code == SI_TIMER && info->si_value.sival_int == 42) {
        timer_signals++;
    }
}

static long long ns_of(const struct timespec* value) {
    return (long long)value->tv_sec * 1000000000LL + value->tv_nsec;
}

static long long monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return ns_of(&now);
}

static void print_clocks(void) {
    for (size_t index = 0; index < sizeof kClocks / sizeof kClocks[0]; ++index) {
        struct timespec through_vdso, through_syscall, resolution;
        clock_gettime(kClocks[index].id, &through_vdso);
        syscall(SYS_clock_gettime, kClocks[index].id, &through_syscall);
        clock_getres(kClocks[index].id, &resolution);
        printf("%s %lld %lld res %lld\n", kClocks[index].name, ns_of(&through_vdso), ns_of(&through_syscall),
               ns_of(&resolution));
    }
    struct timeval now;
    gettimeofday(&now, NULL);
    printf("gettimeofday %lld.%06ld time %lld\n", (long long)now.tv_sec, (long)now.tv_usec,
           (long long)time(NULL));
}

static void sleep_long(void) {
    const long long before = monotonic_ns();
    sleep(1);
    struct timespec quarter = {0, 250000000};
    clock_nanosleep(CLOCK_MONOTONIC, 0, &quarter, NULL);
    usleep(125000);
    printf("slept %lld ns\n", monotonic_ns() - before);
}

static void posix_timer(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_timer;
    action.sa_flags = SA_SIGINFO;
    sigaction(SIGRTMIN, &action, NULL);
    struct sigevent event;
    memset(&event, 0, sizeof event);
    event.sigev_notify = SIGEV_SIGNAL;
    event.sigev_signo = SIGRTMIN;
    event.sigev_value.sival_int = 42;
    timer_t timer;
    timer_create(CLOCK_MONOTONIC, &event, &timer);
    struct itimerspec every_20ms = {{0, 20000000}, {0, 20000000}};
    const long long before = monotonic_ns();
    timer_settime(timer, 0, &every_20ms, NULL);
    while (timer_signals < 3) {
        pause();
    }
    struct itimerspec left;
    timer_gettime(timer, &left);
    printf("posix timer: 3 signals after %lld ns, %ld ns to the next, overrun %d\n", monotonic_ns() - before,
           left.it_value.tv_nsec, timer_getoverrun(timer));
    timer_delete(timer);
}

static volatile int thread_calls;

static void on_thread_timer(union sigval value) {
    thread_calls += value.sival_int;
}

// glibc runs SIGEV_THREAD timers through a helper thread that the kernel (here: hermit) signals.
static void posix_thread_timer(void) {
    struct sigevent event;
    memset(&event, 0, sizeof event);
    event.sigev_notify = SIGEV_THREAD;
    event.sigev_notify_function = on_thread_timer;
    event.sigev_value.sival_int = 1;
    timer_t timer;
    timer_create(CLOCK_MONOTONIC, &event, &timer);
    struct itimerspec every_10ms = {{0, 10000000}, {0, 10000000}};
    const long long before = monotonic_ns();
    timer_settime(timer, 0, &every_10ms, NULL);
    while (thread_calls < 3) {
        struct timespec moment = {0, 1000000};
        nanosleep(&moment, NULL);
    }
    timer_delete(timer);
    printf("sigev_thread timer: %d calls after %lld ns\n", thread_calls, monotonic_ns() - before);
}

static void cpu_time(void) {
    struct itimerval in_a_second = {{0, 0}, {1, 0}};
    setitimer(ITIMER_VIRTUAL, &in_a_second, NULL);
    setitimer(ITIMER_PROF, &in_a_second, NULL);
    volatile long work = 0;
    for (long step = 0; step < 2000000; ++step) {
        work = work + step;
    }
    getppid();
    struct itimerval virtual_left, prof_left;
    getitimer(ITIMER_VIRTUAL, &virtual_left);
    getitimer(ITIMER_PROF, &prof_left);
    printf("itimer virtual left %ld.%06ld prof left %ld.%06ld\n", (long)virtual_left.it_value.tv_sec,
           (long)virtual_left.it_value.tv_usec, (long)prof_left.it_value.tv_sec,
           (long)prof_left.it_value.tv_usec);
    struct tms usage;
    const clock_t ticks = times(&usage);
    printf("times %ld user %ld system %ld\n", (long)ticks, (long)usage.tms_utime, (long)usage.tms_stime);
    struct rusage self;
    getrusage(RUSAGE_SELF, &self);
    printf("getrusage user %ld.%06ld system %ld.%06ld maxrss %ld\n", (long)self.ru_utime.tv_sec,
           (long)self.ru_utime.tv_usec, (long)self.ru_stime.tv_sec, (long)self.ru_stime.tv_usec,
           self.ru_maxrss);
    struct sysinfo info;
    sysinfo(&info);
    printf("sysinfo uptime %ld\n", info.uptime);
    char uptime[64] = {0};
    FILE* file = fopen("/proc/uptime", "r");
    if (file != NULL && fgets(uptime, sizeof uptime, file) != NULL) {
        printf("/proc/uptime %s", uptime);
    }
    if (file != NULL) {
        fclose(file);
    }
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    print_clocks();
    sleep_long();
    posix_timer();
    posix_thread_timer();
    cpu_time();
    print_clocks();
    return 0;
}
