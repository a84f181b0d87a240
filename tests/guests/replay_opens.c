// open and openat in the shapes a recording does in the tracer and installs in the guest (read-only,
// read-write, O_TRUNC, O_APPEND, O_CREAT under the guest's umask, through a symlink, from a directory
// descriptor, the errors it gives itself) and in those it leaves to the kernel (O_PATH, a file only
// hermit's capabilities could open). argv[1]: a scratch directory. argv[2]: how many times to open and
// close the file (its stops are counted by the test). The symlink is the system's /usr/bin/sh (the ones
// the guest makes are replay_made_names').
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char file[4096], below[4096], locked[4096], made[4096], unreachable[4096];

static void show(const char* what, int fd) {
    if (fd < 0) {
        printf("%s: %s\n", what, strerror(errno));
        return;
    }
    const int status = fcntl(fd, F_GETFL);
    const int descriptor = fcntl(fd, F_GETFD);
    printf("%s: yes%s%s%s\n", what, (descriptor & FD_CLOEXEC) ? ", close-on-exec" : "",
           (status & O_APPEND) ? ", append" : "", (status & O_ACCMODE) == O_RDWR ? ", read-write" : "");
    close(fd);
}

static void print_contents(const char* what) {
    char bytes[256] = {0};
    const int fd = open(file, O_RDONLY);
    const ssize_t count = read(fd, bytes, sizeof bytes - 1);
    close(fd);
    printf("%s: %zd bytes: %s", what, count, bytes);
}

int main(int argc, char** argv) {
    if (argc < 3) {
        return 2;
    }
    snprintf(file, sizeof file, "%s/file", argv[1]);
    snprintf(below, sizeof below, "%s/file/below", argv[1]);
    snprintf(locked, sizeof locked, "%s/locked", argv[1]);
    snprintf(made, sizeof made, "%s/made", argv[1]);
    snprintf(unreachable, sizeof unreachable, "%s/missing/made", argv[1]);
    const int created = open(file, O_WRONLY | O_CREAT | O_EXCL, 0644);
    const int locked_fd = open(locked, O_WRONLY | O_CREAT | O_EXCL, 0);
    if (created < 0 || write(created, "first\n", 6) != 6 || close(created) != 0 || locked_fd < 0 ||
        close(locked_fd) != 0) {
        perror("setup");
        return 1;
    }
    print_contents("created");
    show("read-only", open(file, O_RDONLY | O_CLOEXEC));
    const int appending = open(file, O_WRONLY | O_APPEND);
    show("appending", dup(appending));
    if (write(appending, "second\n", 7) != 7) {
        perror("append");
    }
    close(appending);
    print_contents("appended");
    show("read-write", open(file, O_RDWR));
    show("through a symlink", open("/usr/bin/sh", O_RDONLY));
    show("a symlink with O_NOFOLLOW", open("/usr/bin/sh", O_RDONLY | O_NOFOLLOW));
    show("a file with O_DIRECTORY", open(file, O_RDONLY | O_DIRECTORY));
    show("a directory", open(argv[1], O_RDONLY | O_DIRECTORY));
    show("a directory for writing", open(argv[1], O_WRONLY));
    show("missing", open("/nonexistent/hermit", O_RDONLY));
    show("under a file", openat(AT_FDCWD, below, O_RDONLY));
    const int scratch = open(argv[1], O_RDONLY | O_DIRECTORY);
    show("at a directory", openat(scratch, "file", O_RDONLY));
    show("at a directory, missing", openat(scratch, "missing", O_RDONLY));
    show("O_PATH", openat(scratch, "file", O_PATH));
    show("no permission bits", open(locked, O_RDONLY));
    show("creating, existing", open(file, O_WRONLY | O_CREAT, 0644));
    show("creating, exclusive, existing", open(file, O_WRONLY | O_CREAT | O_EXCL, 0644));
    show("creating under a missing directory", open(unreachable, O_WRONLY | O_CREAT, 0644));
    umask(027);
    show("creating", open(made, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666));
    struct stat status;
    printf("its mode: %o\n", stat(made, &status) == 0 ? (unsigned)(status.st_mode & 07777) : 0U);
    show("truncating", open(file, O_WRONLY | O_TRUNC));
    print_contents("truncated");
    long opened = 0;
    for (long round = atol(argv[2]); round > 0; round--) {
        const int fd = openat(scratch, "file", O_RDONLY);
        opened += fd >= 0;
        close(fd);
    }
    printf("loop: %ld opened\n", opened);
    close(scratch);
    return 0;
}
