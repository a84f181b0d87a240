// Name changes in the shapes a recording does in the tracer (mkdir, link, rename, symlink, unlink, rmdir,
// their *at forms, their errors) and the ones it leaves to the kernel (a trailing slash, ".", unknown
// flags). The modes of the directories made show that the guest's umask applies. argv[1]: a scratch
// directory.
// argv[2]: how many times to make and remove a directory (its stops are counted by the test).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "raw_name_calls.h"

static void show(const char* what, long result) {
    printf("%s: %s\n", what, result == 0 ? "yes" : strerror(errno));
}

static void show_mode(const char* what, const char* path) {
    struct stat status;
    if (stat(path, &status) == 0) {
        printf("%s: %o\n", what, (unsigned)(status.st_mode & 07777));
    } else {
        printf("%s: %s\n", what, strerror(errno));
    }
}

int main(int argc, char** argv) {
    if (argc < 3 || chdir(argv[1]) != 0) {
        return 2;
    }
    umask(027);
    int scratch = open(".", O_RDONLY | O_DIRECTORY);
    FILE* created = fopen("file", "w");
    if (scratch < 0 || created == NULL || fclose(created) != 0) {
        perror("setup");
        return 1;
    }
    show("mkdir", mkdir("dir", 0777));
    show_mode("its mode", "dir");
    show("mkdir again", mkdir("dir", 0777));
    show("mkdirat", mkdirat(scratch, "dir/sub", 0700));
    show_mode("its mode", "dir/sub");
    show("mkdir under a file", mkdir("file/below", 0777));
    show("link", link("file", "dir/link"));
    show("link again", link("file", "dir/link"));
    show("linkat", linkat(scratch, "file", scratch, "other", 0));
    show("link of a missing file", link("missing", "dir/missing"));
    show("rename", rename("dir/link", "dir/renamed"));
    show("renameat2, no replace", renameat2(scratch, "other", scratch, "dir/renamed", RENAME_NOREPLACE));
    show("renameat", renameat(scratch, "dir/renamed", scratch, "dir/link"));
    show("rename of a missing file", rename("missing", "dir/missing"));
    show("symlink", symlink("../file", "dir/symbolic"));
    show("symlinkat again", symlinkat("../file", scratch, "dir/symbolic"));
    show("unlink of the symlink", unlink("dir/symbolic"));
    show("unlink", unlink("dir/link"));
    show("unlink again", unlink("dir/link"));
    show("unlinkat", unlinkat(scratch, "other", 0));
    show("unlinkat of a directory", unlinkat(scratch, "dir", 0));
    show("rmdir of a full directory", rmdir("dir"));
    show("unlinkat, removing a directory", unlinkat(scratch, "dir/sub", AT_REMOVEDIR));
    show("rmdir with a trailing slash", rmdir("dir/"));
    show("rmdir of .", rmdir("."));
    show("unlinkat with unknown flags", unlinkat(scratch, "file", 0x40000000));
    long made = 0;
    for (long round = atol(argv[2]); round > 0; round--) {
        made += mkdir("loop", 0700) == 0 && rmdir("loop") == 0;
    }
    printf("loop: %ld made and removed\n", made);
    unlink("file");
    return 0;
}
