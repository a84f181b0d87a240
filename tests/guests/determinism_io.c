// Waiting for descriptors: producer threads feed two pipes and an eventfd while the main thread multiplexes
// them with epoll, poll and select; a timerfd is read, polled and queried; a signal sent between threads
// arrives through a signalfd; blocking reads of a pipe and an eventfd wait for threads that only run once
// the reader is parked. Natively the order of the events, the timer expirations and the measured delays
// change from run to run; under hermit they are fixed, and no read deadlocks the tracer.
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/select.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

enum { kMessages = 6 };

static int pipe_a[2], pipe_b[2], counter_fd;
static pid_t main_tid;

static long now_us(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec * 1000000 + now.tv_nsec / 1000;
}

static void* pipe_producer(void* argument) {
    const int* fds = argument;
    for (int message = 0; message < kMessages; ++message) {
        char byte = (char)('0' + message);
        write(fds[1], &byte, 1);
        sched_yield();
    }
    return NULL;
}

static void* counter_producer(void* unused) {
    (void)unused;
    for (int message = 0; message < kMessages; ++message) {
        uint64_t one = 1;
        write(counter_fd, &one, sizeof one);
        sched_yield();
    }
    return NULL;
}

static void* late_writer(void* unused) {
    (void)unused;
    struct timespec delay = {0, 1000000};
    nanosleep(&delay, NULL);
    write(pipe_a[1], "late", 4);
    nanosleep(&delay, NULL);
    uint64_t seven = 7;
    write(counter_fd, &seven, sizeof seven);
    nanosleep(&delay, NULL);
    syscall(SYS_tgkill, getpid(), main_tid, SIGUSR1);
    nanosleep(&delay, NULL);
    syscall(SYS_tgkill, getpid(), main_tid, SIGUSR2);
    return NULL;
}

static void multiplex_with_epoll(void) {
    const int epoll_fd = epoll_create1(0);
    const int fds[3] = {pipe_a[0], pipe_b[0], counter_fd};
    for (int index = 0; index < 3; ++index) {
        struct epoll_event interest = {.events = EPOLLIN, .data.u32 = (uint32_t)index};
        epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fds[index], &interest);
    }
    pthread_t producers[3];
    pthread_create(&producers[0], NULL, pipe_producer, pipe_a);
    pthread_create(&producers[1], NULL, pipe_producer, pipe_b);
    pthread_create(&producers[2], NULL, counter_producer, NULL);
    printf("epoll:");
    for (int received = 0; received < 3 * kMessages;) {
        struct epoll_event ready[3];
        const int count = epoll_wait(epoll_fd, ready, 3, -1);
        for (int index = 0; index < count; ++index) {
            char bytes[16];
            uint64_t value = 0;
            if (ready[index].data.u32 == 2) {
                read(counter_fd, &value, sizeof value);
                printf(" c%llu", (unsigned long long)value);
                received += (int)value;
            } else {
                const ssize_t length = read(fds[ready[index].data.u32], bytes, sizeof bytes);
                printf(" %c%.*s", ready[index].data.u32 == 0 ? 'a' : 'b', (int)length, bytes);
                received += (int)length;
            }
        }
    }
    printf("\n");
    for (int index = 0; index < 3; ++index) {
        pthread_join(producers[index], NULL);
    }
    close(epoll_fd);
}

static void multiplex_with_poll_and_select(void) {
    pthread_t producers[2];
    pthread_create(&producers[0], NULL, pipe_producer, pipe_a);
    pthread_create(&producers[1], NULL, pipe_producer, pipe_b);
    printf("poll/select:");
    for (int received = 0; received < 2 * kMessages;) {
        char bytes[16];
        if (received % 2 == 0) {
            struct pollfd fds[2] = {{pipe_a[0], POLLIN, 0}, {pipe_b[0], POLLIN, 0}};
            poll(fds, 2, -1);
            for (int index = 0; index < 2; ++index) {
                if (fds[index].revents & POLLIN) {
                    const ssize_t length = read(fds[index].fd, bytes, sizeof bytes);
                    printf(" p%c%.*s", index == 0 ? 'a' : 'b', (int)length, bytes);
                    received += (int)length;
                }
            }
        } else {
            fd_set readable;
            FD_ZERO(&readable);
            FD_SET(pipe_a[0], &readable);
            FD_SET(pipe_b[0], &readable);
            select(pipe_b[0] + 1, &readable, NULL, NULL, NULL);
            for (int index = 0; index < 2; ++index) {
                const int fd = index == 0 ? pipe_a[0] : pipe_b[0];
                if (FD_ISSET(fd, &readable)) {
                    const ssize_t length = read(fd, bytes, sizeof bytes);
                    printf(" s%c%.*s", index == 0 ? 'a' : 'b', (int)length, bytes);
                    received += (int)length;
                }
            }
        }
    }
    printf("\n");
    pthread_join(producers[0], NULL);
    pthread_join(producers[1], NULL);
}

static void use_timerfd(void) {
    const int timer = timerfd_create(CLOCK_MONOTONIC, 0);
    struct itimerspec once = {{0, 0}, {0, 50000000}};
    long start = now_us();
    timerfd_settime(timer, 0, &once, NULL);
    uint64_t expirations = 0;
    read(timer, &expirations, sizeof expirations); // blocks until the deadline
    printf("timerfd read %llu after %ld us\n", (unsigned long long)expirations, now_us() - start);

    struct itimerspec periodic = {{0, 10000000}, {0, 10000000}};
    start = now_us();
    timerfd_settime(timer, 0, &periodic, NULL);
    struct pollfd readable = {timer, POLLIN, 0};
    poll(&readable, 1, -1);
    read(timer, &expirations, sizeof expirations);
    printf("timerfd poll %llu after %ld us\n", (unsigned long long)expirations, now_us() - start);
    struct timespec sleep_for = {0, 35000000};
    nanosleep(&sleep_for, NULL);
    struct itimerspec left;
    timerfd_gettime(timer, &left);
    read(timer, &expirations, sizeof expirations);
    printf("timerfd after a 35 ms sleep: %llu expirations, %ld us to the next\n",
           (unsigned long long)expirations, left.it_value.tv_nsec / 1000);
    close(timer);
}

static void blocking_reads_and_signalfd(void) {
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    sigset_t usr2;
    sigemptyset(&usr2);
    sigaddset(&usr2, SIGUSR2);
    sigset_t both = usr1;
    sigaddset(&both, SIGUSR2);
    pthread_sigmask(SIG_BLOCK, &both, NULL);
    const int signals = signalfd(-1, &usr1, 0);
    const int watched_signals = signalfd(-1, &usr2, SFD_NONBLOCK);
    const int epoll_fd = epoll_create1(0);
    struct epoll_event interest = {.events = EPOLLIN, .data.fd = watched_signals};
    epoll_ctl(epoll_fd, EPOLL_CTL_ADD, watched_signals, &interest);
    pthread_t writer;
    long start = now_us();
    pthread_create(&writer, NULL, late_writer, NULL);
    char bytes[16];
    const ssize_t length = read(pipe_a[0], bytes, sizeof bytes);
    printf("pipe read '%.*s' after %ld us\n", (int)length, bytes, now_us() - start);
    uint64_t value = 0;
    read(counter_fd, &value, sizeof value);
    printf("eventfd read %llu after %ld us\n", (unsigned long long)value, now_us() - start);
    struct signalfd_siginfo info;
    read(signals, &info, sizeof info);
    printf("signalfd read signal %u from pid %u after %ld us\n", info.ssi_signo, info.ssi_pid,
           now_us() - start);
    struct epoll_event ready;
    const int count = epoll_wait(epoll_fd, &ready, 1, -1);
    read(watched_signals, &info, sizeof info);
    printf("epoll of a signalfd: %d ready, signal %u after %ld us\n", count, info.ssi_signo,
           now_us() - start);
    pthread_join(writer, NULL);
    close(epoll_fd);
    close(watched_signals);
    close(signals);
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    main_tid = (pid_t)syscall(SYS_gettid);
    pipe(pipe_a);
    pipe(pipe_b);
    counter_fd = eventfd(0, 0);
    multiplex_with_epoll();
    multiplex_with_poll_and_select();
    use_timerfd();
    blocking_reads_and_signalfd();
    return 0;
}
