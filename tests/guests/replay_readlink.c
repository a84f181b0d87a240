// readlink in the shapes a recording answers in the tracer (a link, a truncated buffer, a relative path
// from a directory descriptor, something that is not a link) and the ones it leaves to the kernel
// (/proc/self, a missing file, a trailing slash). argv[1]: a scratch directory. argv[2]: how many times to
// repeat the loop of link and non-link readlinks (their stops are counted by the test). argv[3], optional:
// how many times to ask about system files (readlink, access and faccessat under /usr), which a recording
// leaves to the kernel without an event.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void show(const char* what, ssize_t length, const char* buffer) {
    if (length < 0) {
        printf("%s: %s\n", what, strerror(errno));
    } else {
        printf("%s: %zd %.*s\n", what, length, (int)length, buffer);
    }
}

int main(int argc, char** argv) {
    if (argc < 3) {
        return 2;
    }
    char link[4096], buffer[256];
    snprintf(link, sizeof link, "%s/link", argv[1]);
    if (symlink("the-target", link) != 0) {
        perror("symlink");
        return 1;
    }
    show("link", readlink(link, buffer, sizeof buffer), buffer);
    show("truncated", readlink(link, buffer, 3), buffer);
    int directory = open(argv[1], O_RDONLY | O_DIRECTORY);
    show("at directory", readlinkat(directory, "link", buffer, sizeof buffer), buffer);
    show("not a link", readlink(argv[1], buffer, sizeof buffer), buffer);
    show("missing", readlink("/nonexistent/hermit", buffer, sizeof buffer), buffer);
    show("trailing slash", readlink("/tmp/", buffer, sizeof buffer), buffer);
    ssize_t own = readlink("/proc/self/exe", buffer, sizeof buffer);
    printf("own executable: %s\n", own > 0 && strstr(buffer, "replay_readlink") ? "found" : "wrong");
    long total = 0;
    for (long round = atol(argv[2]); round > 0; round--) {
        total += readlink(link, buffer, sizeof buffer) + readlink(argv[1], buffer, sizeof buffer);
    }
    printf("loop total %ld\n", total);
    long answered = 0;
    for (long round = argc > 3 ? atol(argv[3]) : 0; round > 0; round--) {
        answered += readlink("/usr/bin/sh", buffer, sizeof buffer) > 0 && access("/usr/bin/sh", X_OK) == 0 &&
                    faccessat(AT_FDCWD, "/usr", R_OK, 0) == 0 && readlink("/usr", buffer, sizeof buffer) < 0;
    }
    printf("system files: %ld answered\n", answered);
    unlink(link);
    return 0;
}
