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

int main(void) {
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    printf("ready\n");
    fflush(stdout);
    char byte;
    read(0, &byte, 1);
    return 0;
}
