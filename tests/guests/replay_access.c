// access in the shapes a recording answers in the tracer (a missing name, a name under a regular file, from a
// directory descriptor, with AT_EACCESS) and the ones it leaves to the kernel (an existing file, a dangling
// symlink, arguments the kernel refuses). glibc's faccessat calls faccessat2 (and checks flags itself without
// it). argv[1]: a scratch directory. argv[2]: how many times to repeat the access of a missing name (its
// stops are counted by the test).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "raw_name_calls.h"

static void show(const char* what, long result) {
    printf("%s: %s\n", what, result == 0 ? "yes" : strerror(errno));
}

int main(int argc, char** argv) {
    if (argc < 3) {
        return 2;
    }
    char file[4096], below[4096], dangling[4096];
    snprintf(file, sizeof file, "%s/file", argv[1]);
    snprintf(below, sizeof below, "%s/file/below", argv[1]);
    snprintf(dangling, sizeof dangling, "%s/dangling", argv[1]);
    FILE* created = fopen(file, "w");
    if (created == NULL || fclose(created) != 0 || symlink("nowhere", dangling) != 0) {
        perror("setup");
        return 1;
    }
    show("missing", access("/nonexistent/hermit", F_OK));
    show("under a file", access(below, R_OK));
    int directory = open(argv[1], O_RDONLY | O_DIRECTORY);
    show("at directory, missing", faccessat(directory, "missing", W_OK, 0));
    show("at directory, existing", faccessat(directory, "file", R_OK, 0));
    show("effective ids, missing", faccessat(AT_FDCWD, "/nonexistent/hermit", X_OK, AT_EACCESS));
    show("existing", access(file, R_OK | W_OK));
    show("dangling link", access(dangling, F_OK));
    show("dangling link itself", faccessat(AT_FDCWD, dangling, F_OK, AT_SYMLINK_NOFOLLOW));
    show("bad mode", access("/nonexistent/hermit", 0100));
    show("bad flags", faccessat(AT_FDCWD, "/nonexistent/hermit", F_OK, 0x40000000));
    long missing = 0;
    for (long round = atol(argv[2]); round > 0; round--) {
        missing += access("/nonexistent/hermit", F_OK) != 0 && errno == ENOENT;
    }
    printf("loop: %ld missing\n", missing);
    unlink(dangling);
    unlink(file);
    return 0;
}
