// Installs a SIGUSR1 handler, creates the file argv[1] to say it is ready, then loops on short sleeps
// (trapped syscalls) until the signal that a process outside the guest sends arrives, and prints at which
// iteration and with which siginfo it came. A replay must deliver it at the same iteration. With argv[2]
// "pause" it waits in pause() instead.
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t received;
static volatile int received_code;

static void on_usr1(int number, siginfo_t* info, void* context) {
    (void)number;
    (void)context;
    received_code = info->si_code;
    received = 1;
}

int main(int argc, char** argv) {
    if (argc < 2) {
        return 2;
    }
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_usr1;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(SIGUSR1, &action, NULL);
    int ready = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (ready < 0 || write(ready, "ready\n", 6) != 6) {
        return 3;
    }
    close(ready);
    if (argc > 2 && strcmp(argv[2], "pause") == 0) {
        int result = pause();
        printf("pause = %d (%s), SIGUSR1 (si_code %d)\n", result, strerror(errno), received_code);
        return received ? 0 : 4;
    }
    long iteration = 0;
    for (; !received && iteration < 2000000; iteration++) {
        struct timespec pause_time = {0, 1000};
        nanosleep(&pause_time, NULL);
    }
    if (!received) {
        printf("no signal\n");
        return 4;
    }
    printf("SIGUSR1 (si_code %d) after %ld iterations\n", received_code, iteration);
    return 0;
}
