// The calls hermit's preload library answers in its syscall buffer (tracer/SyscallBuffer.h), in the shapes
// a build makes them (git's object files: a creating open that finds no directory, the directory made, a
// new temporary file linked to its final name, then unlinked; opens of missing files),
// from the main thread, a second thread and a forked child, relative to the working directory; new files
// at names that calls just before changed (a name made again after its unlink, a directory renamed); an
// access from a vfork child, which shares the parent's buffer and so makes a trapped call; accesses of system
// files, which the library leaves to the kernel. argv[1]: a scratch directory. argv[2]: rounds.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static long rounds;

// Whether an open of `path` with `flags` fails with `error`.
static int open_fails(const char* path, int flags, int error) {
    const int file = open(path, flags, 0644);
    if (file >= 0) {
        close(file);
    }
    return file < 0 && errno == error;
}

// One round under names starting with `prefix`: returns how many calls gave the expected answer (10).
static int round_of(const char* prefix, long round) {
    char directory[64], temporary[96], object[96], under_object[112], final[96];
    snprintf(directory, sizeof directory, "%s%ld", prefix, round);
    snprintf(temporary, sizeof temporary, "%s/tmp", directory);
    snprintf(object, sizeof object, "%s/object", directory);
    snprintf(under_object, sizeof under_object, "%s/object/x", directory);
    snprintf(final, sizeof final, "%s/final", directory);
    int good = open_fails(temporary, O_CREAT | O_EXCL | O_RDWR, ENOENT);
    good += mkdir(directory, 0755) == 0;
    const int file = open(temporary, O_CREAT | O_EXCL | O_WRONLY, 0644);
    if (file >= 0) {
        dprintf(file, "%s round %ld\n", prefix, round);
        close(file);
    }
    good += link(temporary, object) == 0;
    good += link(temporary, object) != 0 && errno == EEXIST;
    good += unlink(temporary) == 0;
    good += open_fails(temporary, O_RDONLY, ENOENT);
    good += open_fails(under_object, O_RDONLY | O_NOFOLLOW, ENOTDIR);
    good += access(object, R_OK) == 0;
    good += access(temporary, F_OK) != 0 && errno == ENOENT;
    good += rename(object, final) == 0;
    return good;
}

static void* thread_rounds(void* prefix) {
    long good = 0;
    for (long round = 0; round < rounds; round++) {
        good += round_of(prefix, round);
    }
    return (void*)good;
}

// Whether new files are made where the calls just before changed names: twice at one name, unlinked in
// between, and in a directory renamed just before.
static int new_files_at_changed_names(void) {
    int good = 0;
    for (int round = 0; round < 2; round++) {
        const int file = open("again", O_CREAT | O_EXCL | O_WRONLY, 0644);
        good += file >= 0 && write(file, "x", 1) == 1;
        if (file >= 0) {
            close(file);
        }
        good += unlink("again") == 0;
    }
    good += mkdir("before", 0755) == 0 && rename("before", "after") == 0;
    const int inside = open("after/new", O_CREAT | O_EXCL | O_WRONLY, 0644);
    good += inside >= 0 && write(inside, "made after the rename\n", 22) == 22;
    if (inside >= 0) {
        close(inside);
    }
    return good == 6;
}

static void show_file(const char* path) {
    char text[128] = {0};
    const int file = open(path, O_RDONLY);
    const ssize_t length = file >= 0 ? read(file, text, sizeof text - 1) : -1;
    printf("%s: %s", path, length > 0 ? text : "(unreadable)\n");
    if (file >= 0) {
        close(file);
    }
}

int main(int argc, char** argv) {
    if (argc < 3 || chdir(argv[1]) != 0) {
        return 2;
    }
    rounds = atol(argv[2]);
    pthread_t thread;
    void* thread_good = NULL;
    pthread_create(&thread, NULL, thread_rounds, "t");
    pthread_join(thread, &thread_good);
    const long main_good = (long)thread_rounds("m");
    printf("main thread: %ld of %ld\nsecond thread: %ld of %ld\n", main_good, 10 * rounds, (long)thread_good,
           10 * rounds);

    const pid_t child = fork();
    if (child == 0) {
        _exit(round_of("c", 0) == 10 ? 0 : 1);
    }
    int status = 0;
    waitpid(child, &status, 0);
    printf("forked child: %s\n", WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "all 10" : "failed");

    const pid_t vforked = vfork();
    if (vforked == 0) {
        _exit(access("c0/final", F_OK) == 0 ? 0 : 1);
    }
    waitpid(vforked, &status, 0);
    printf("vfork child: %s\n", WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "found c0/final" : "failed");

    printf("new files at changed names: %s\n", new_files_at_changed_names() ? "yes" : "failed");
    printf("system files: %s, %s\n", access("/usr/bin", X_OK) == 0 ? "yes" : strerror(errno),
           access("/etc/hermit-missing", F_OK) == 0 ? "yes" : strerror(errno));
    show_file("m0/final");
    show_file("t1/final");
    show_file("c0/final");
    show_file("after/new");
    return 0;
}
