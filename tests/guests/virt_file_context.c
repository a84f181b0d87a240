// Changes its working directory and umask between file operations that hermit answers from the tracer
// (stats, opens, creating opens, mkdir), which look up names from the guest's working directory and
// create under its umask: by chdir, fchdir, chdir in another thread (threads share them), in a forked child
// (which does not change the parent's) and in a thread that left the shared ones by unshare(CLONE_FS).
// Prints what each operation found or made. argv[1]: a scratch directory.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void write_marker(const char* directory) {
    char path[64];
    snprintf(path, sizeof path, "%s/marker", directory);
    FILE* file = fopen(path, "w");
    fprintf(file, "%s", directory);
    fclose(file);
}

// What ./marker says, by an open and a read from the current directory.
static void show_marker(const char* when) {
    char text[16] = "";
    int fd = open("marker", O_RDONLY);
    if (fd < 0 || read(fd, text, sizeof text - 1) < 0) {
        printf("%s: open marker: %s\n", when, strerror(errno));
    } else {
        printf("%s: marker of %s\n", when, text);
    }
    if (fd >= 0) {
        close(fd);
    }
    struct stat info;
    const char* only = text[0] == 'a' ? "only-a" : "only-b";
    printf("%s: stat of %s: %s\n", when, only, stat(only, &info) == 0 ? "found" : strerror(errno));
}

// Creates `name` here by open(O_CREAT) and `name`.d by mkdir, and prints their modes.
static void show_created(const char* name) {
    char directory[64];
    struct stat info;
    int fd = open(name, O_CREAT | O_EXCL | O_WRONLY, 0666);
    if (fd < 0 || fstat(fd, &info) != 0) {
        printf("create %s: %s\n", name, strerror(errno));
        return;
    }
    close(fd);
    printf("create %s: mode %o\n", name, info.st_mode & 0777);
    snprintf(directory, sizeof directory, "%s.d", name);
    if (mkdir(directory, 0777) != 0 || stat(directory, &info) != 0) {
        printf("mkdir %s: %s\n", directory, strerror(errno));
        return;
    }
    printf("mkdir %s: mode %o\n", directory, info.st_mode & 0777);
}

static void* change_to_b(void* unused) {
    (void)unused;
    printf("thread chdir b: %d\n", chdir("../b"));
    return NULL;
}

static void* leave_and_change(void* unused) {
    (void)unused;
    printf("thread unshare: %d\n", unshare(CLONE_FS));
    printf("thread chdir a: %d\n", chdir("../a"));
    show_marker("in the unshared thread");
    umask(0);
    show_created("unshared");
    return NULL;
}

int main(int argc, char** argv) {
    if (argc < 2 || chdir(argv[1]) != 0 || mkdir("a", 0755) != 0 || mkdir("b", 0755) != 0) {
        return 2;
    }
    write_marker("a");
    write_marker("b");
    close(open("a/only-a", O_CREAT | O_WRONLY, 0644));
    close(open("b/only-b", O_CREAT | O_WRONLY, 0644));
    const int a = open("a", O_PATH | O_DIRECTORY);

    chdir("a");
    show_marker("after chdir a");
    umask(022);
    show_created("first");
    chdir("../b");
    show_marker("after chdir b");
    umask(077);
    show_created("second");
    fchdir(a);
    show_marker("after fchdir a");
    umask(027);
    show_created("third");

    pthread_t thread;
    pthread_create(&thread, NULL, change_to_b, NULL);
    pthread_join(thread, NULL);
    show_marker("after a thread's chdir b");

    fflush(stdout); // the child must not print the parent's buffered lines again
    const pid_t child = fork();
    if (child == 0) {
        chdir("../a");
        umask(0);
        show_marker("in the child after chdir a");
        show_created("child");
        fflush(stdout);
        _exit(0);
    }
    waitpid(child, NULL, 0);
    show_marker("after the child's chdir a");
    show_created("fourth");

    pthread_create(&thread, NULL, leave_and_change, NULL);
    pthread_join(thread, NULL);
    show_marker("after the unshared thread's chdir a");
    show_created("fifth");
    return 0;
}
