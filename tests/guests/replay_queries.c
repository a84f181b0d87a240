// Asks what a recording answers from hermit without a ptrace stop: getcwd (in the scratch directory, in a
// subdirectory, with a buffer too small, and in a directory removed meanwhile), and ioctls that report a
// descriptor's state (FIONREAD of a pipe with bytes queued, TCGETS and TIOCGWINSZ of what is no terminal).
// argv[1]: a scratch directory; argv[2]: how many more rounds of getcwd and FIONREAD to ask.
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

// The raw syscall: glibc's getcwd falls back to its own walk on some errors.
static long raw_getcwd(char* buffer, size_t size) {
    return syscall(SYS_getcwd, buffer, size);
}

static void show_getcwd(const char* what, const char* scratch, size_t size) {
    char buffer[4096];
    const long length = raw_getcwd(buffer, size);
    if (length < 0) {
        printf("%s: %s\n", what, strerror(errno));
    } else if (strncmp(buffer, scratch, strlen(scratch)) == 0) {
        // The length counts the terminating NUL.
        printf("%s: <scratch>%s, length + %ld\n", what, buffer + strlen(scratch),
               length - (long)strlen(scratch));
    } else {
        printf("%s: %ld %s\n", what, length, buffer);
    }
}

int main(int argc, char** argv) {
    if (argc < 3 || chdir(argv[1]) != 0 || mkdir("sub", 0700) != 0 || mkdir("gone", 0700) != 0) {
        return 2;
    }
    const char* scratch = argv[1];
    show_getcwd("scratch", scratch, 4096);
    show_getcwd("small buffer", scratch, 3);
    if (chdir("sub") != 0) {
        return 1;
    }
    show_getcwd("subdirectory", scratch, 4096);
    char gone[4096];
    snprintf(gone, sizeof gone, "%s/gone", scratch);
    if (chdir(gone) != 0 || rmdir(gone) != 0) {
        return 1;
    }
    show_getcwd("removed", scratch, 4096);
    if (chdir(scratch) != 0) {
        return 1;
    }

    int ends[2];
    if (pipe(ends) != 0 || write(ends[1], "queued", 6) != 6) {
        return 1;
    }
    int queued = -1;
    const int asked = ioctl(ends[0], FIONREAD, &queued);
    printf("FIONREAD of a pipe: %d, %d\n", asked, queued);
    struct termios attributes;
    const int terminal = ioctl(ends[0], TCGETS, &attributes);
    printf("TCGETS of a pipe: %d %s\n", terminal, terminal < 0 ? strerror(errno) : "");
    struct winsize size;
    const int window = ioctl(ends[0], TIOCGWINSZ, &size);
    printf("TIOCGWINSZ of a pipe: %d %s\n", window, window < 0 ? strerror(errno) : "");

    const int rounds = atoi(argv[2]);
    int same = 0;
    for (int round = 0; round < rounds; round++) {
        char buffer[4096];
        same +=
            raw_getcwd(buffer, sizeof buffer) > 0 && ioctl(ends[0], FIONREAD, &queued) == 0 && queued == 6;
    }
    printf("rounds: %d of %d the same\n", same, rounds);
    return 0;
}
