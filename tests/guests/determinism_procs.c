// Processes: a fork/exec tree reaped in whatever order the children end, SIGCHLD, pids and tids, kill and
// tgkill between processes and threads, alarm(2), setitimer(ITIMER_REAL) and a sigtimedwait that times out.
// Natively pids, tids, the reaping order and the alarm's delay change from run to run; under hermit the guest
// is pid 1 of a fresh pid namespace, threads are created and scheduled in a fixed order and timers run on the
// virtual clock.
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { kChildren = 3 };

static volatile sig_atomic_t sigchld_count;
static volatile sig_atomic_t usr1_tid;
static volatile sig_atomic_t alarms;

static void on_sigchld(int signal_number) {
    (void)signal_number;
    sigchld_count++;
}
static void on_usr1(int signal_number) {
    (void)signal_number;
    usr1_tid = (sig_atomic_t)gettid();
}
static void on_alarm(int signal_number) {
    (void)signal_number;
    alarms++;
}

static long elapsed_us(const struct timespec* since) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - since->tv_sec) * 1000000 + (now.tv_nsec - since->tv_nsec) / 1000;
}

static void* idle_thread(void* unused) {
    (void)unused;
    for (;;) {
        pause();
    }
    return NULL;
}

static void* exec_thread(void* program) {
    struct timespec moment = {0, 1000000};
    nanosleep(&moment, NULL);
    execl("/proc/self/exe", (const char*)program, "goodbye", (char*)NULL);
    return NULL;
}

static void* signalled_thread(void* unused) {
    (void)unused;
    printf("thread tid %d\n", (int)gettid());
    fflush(stdout);
    while (usr1_tid == 0) {
        pause();
    }
    return NULL;
}

int main(int argc, char** argv) {
    if (argc > 1) { // the exec'd child
        printf("exec'd pid %d ppid %d says %s\n", (int)getpid(), (int)getppid(), argv[1]);
        return strcmp(argv[1], "goodbye") == 0 ? 0 : 3;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("parent pid %d tid %d\n", (int)getpid(), (int)gettid());
    signal(SIGCHLD, on_sigchld);
    signal(SIGUSR1, on_usr1);
    signal(SIGALRM, on_alarm);

    pid_t children[kChildren];
    for (int index = 0; index < kChildren; ++index) {
        children[index] = fork();
        if (children[index] == 0) {
            if (index == 0) {
                execl("/proc/self/exe", argv[0], "hello", (char*)NULL);
                _exit(126);
            }
            if (index == 1) {
                pause(); // until the parent's SIGTERM
                _exit(0);
            }
            volatile long spin = 0;
            for (long step = 0; step < 3000000; ++step) {
                spin = spin + step;
            }
            printf("child %d pid %d ppid %d\n", index, (int)getpid(), (int)getppid());
            _exit(10 + index);
        }
    }
    printf("forked %d %d %d\n", (int)children[0], (int)children[1], (int)children[2]);
    kill(children[1], SIGTERM);
    for (int reaped = 0; reaped < kChildren; ++reaped) {
        int status = 0;
        const pid_t child = wait(&status);
        if (WIFEXITED(status)) {
            printf("reaped %d exit %d\n", (int)child, WEXITSTATUS(status));
        } else {
            printf("reaped %d signal %d\n", (int)child, WTERMSIG(status));
        }
    }
    printf("sigchld handled %d times\n", (int)sigchld_count);

    pthread_t thread;
    pthread_create(&thread, NULL, signalled_thread, NULL);
    struct timespec pause_for = {0, 2000000};
    nanosleep(&pause_for, NULL);
    pthread_kill(thread, SIGUSR1); // tgkill
    pthread_join(thread, NULL);
    printf("SIGUSR1 handled by tid %d\n", (int)usr1_tid);

    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    alarm(1);
    pause();
    printf("alarm after %ld us\n", elapsed_us(&start));
    struct itimerval every_5ms = {{0, 5000}, {0, 5000}};
    clock_gettime(CLOCK_MONOTONIC, &start);
    setitimer(ITIMER_REAL, &every_5ms, NULL);
    while (alarms < 4) {
        pause();
    }
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    printf("4 alarms after %ld us\n", elapsed_us(&start));

    sigset_t usr2;
    sigemptyset(&usr2);
    sigaddset(&usr2, SIGUSR2);
    sigprocmask(SIG_BLOCK, &usr2, NULL);
    struct timespec wait_for = {0, 30000000};
    clock_gettime(CLOCK_MONOTONIC, &start);
    const int nothing = sigtimedwait(&usr2, NULL, &wait_for);
    printf("sigtimedwait %d (%s) after %ld us\n", nothing, errno == EAGAIN ? "timed out" : "?",
           elapsed_us(&start));
    raise(SIGUSR2);
    printf("sigtimedwait %d\n", sigtimedwait(&usr2, NULL, &wait_for));

    // exec from a thread other than main while more threads live: the kernel ends them first, and the
    // exec'ing thread takes over the process id.
    pthread_t idle, execing;
    pthread_create(&idle, NULL, idle_thread, NULL);
    pthread_create(&execing, NULL, exec_thread, argv[0]);
    pthread_join(execing, NULL);
    return 1;
}
