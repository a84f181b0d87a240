// Guest for signals from the terminal and from kill: prints "ready", waits in a read of stdin, and exits
// from its handler: 42 for SIGINT, 43 for SIGTERM.
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void on_signal(int signal_number) {
    const char* said = signal_number == SIGINT ? "got SIGINT\n" : "got SIGTERM\n";
    write(1, said, strlen(said));
    _exit(signal_number == SIGINT ? 42 : 43);
}

int main(int argc, char** argv) {
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    sigset_t both;
    sigemptyset(&both);
    sigaddset(&both, SIGINT);
    sigaddset(&both, SIGTERM);
    // "between": the signals stay blocked until a first byte arrives (sent after the signal), so one is
    // pending as they are unblocked: it is taken between syscalls, just before the read that waits.
    const int between = argc > 1 && strcmp(argv[1], "between") == 0;
    char byte;
    if (between) {
        sigprocmask(SIG_BLOCK, &both, NULL);
    }
    printf("ready\n");
    fflush(stdout);
    if (between) {
        read(0, &byte, 1);
        sigprocmask(SIG_UNBLOCK, &both, NULL);
    }
    read(0, &byte, 1);
    return 0;
}
