// realpath and canonicalize_file_name of system paths, of symlinks and names that fail in argv[1] (what a
// failure leaves in the caller's buffer too), then argv[2] more rounds of a system path, and of opens of a
// system file and a system directory, which under hermit are made from the syscall buffer library's call
// site. Built fortified: realpath into a PATH_MAX buffer is
// glibc's __realpath_chk.
#undef _FORTIFY_SOURCE
#define _FORTIFY_SOURCE 2
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void show(const char* label, const char* path) {
    char resolved[PATH_MAX];
    strcpy(resolved, "(untouched)");
    errno = 0;
    if (realpath(path, resolved) != NULL) {
        printf("%s: %s\n", label, resolved);
    } else {
        printf("%s: %s, left %s\n", label, strerror(errno), resolved);
    }
}

int main(int argc, char** argv) {
    if (argc < 3 || chdir(argv[1]) != 0) {
        return 2;
    }
    FILE* file = fopen("f", "w");
    if (file == NULL || fclose(file) != 0 || mkdir("d", 0755) != 0 || symlink("f", "link") != 0 ||
        symlink("..", "up") != 0 || symlink("loop", "loop") != 0 || symlink("/usr/bin", "abs") != 0) {
        return 3;
    }
    show("system", "/usr/lib/../bin");
    show("system link", "/lib64/ld-linux-x86-64.so.2");
    show("link", "link");
    show("through up", "d/../up/");
    show("absolute link", "abs/../lib");
    show("file as directory", "f/");
    show("file then dot", "f/.");
    show("missing", "missing/x");
    show("loop", "loop");
    show("root", "//");
    show("empty", "");
    char* canonical = canonicalize_file_name("/usr/./bin/");
    char* made = realpath("d", NULL);
    printf("canonical: %s\nmade: %s\n", canonical, made);
    free(canonical);
    free(made);

    const int rounds = atoi(argv[2]);
    char first[PATH_MAX];
    char again[PATH_MAX];
    int same = 0;
    if (realpath("/usr/lib/x86_64-linux-gnu/../../include", first) == NULL) {
        return 4;
    }
    for (int round = 0; round < rounds; round++) {
        same +=
            realpath("/usr/lib/x86_64-linux-gnu/../../include", again) != NULL && strcmp(first, again) == 0;
    }
    printf("rounds: %d of %d the same\n", same, rounds);
    int opened = 0;
    for (int round = 0; round < rounds; round++) {
        char magic[4] = {0};
        const int program = open("/usr/bin/env", O_RDONLY | O_CLOEXEC);
        const int directory = open("/usr/bin", O_RDONLY | O_DIRECTORY);
        opened += program >= 0 && read(program, magic, sizeof magic) == 4 &&
                  memcmp(magic, "\177ELF", 4) == 0 && directory >= 0;
        close(program);
        close(directory);
    }
    printf("opens: %d of %d\n", opened, rounds);
    return 0;
}
