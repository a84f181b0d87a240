// Names the guest makes and then uses: symlinks opened through (relative and absolute targets, to a
// directory it made, to a system file, to a program it runs), a directory it made opened with O_DIRECTORY and
// a file made in it from that descriptor, a hard link written and read through its new name, a directory
// renamed with a file in it, a removed symlink, and ".." out of a directory it made (the cwd). A replay
// must find them all without making any
// (docs/ARCHITECTURE.md, "Record and replay"). argv[1]: a scratch directory, left empty at the end. argv[2]:
// how many times to open the file through the symlink.
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void write_file(int directory, const char* path, int flags, const char* text) {
    const int fd = openat(directory, path, O_WRONLY | O_CREAT | flags, 0644);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) || close(fd) != 0) {
        printf("writing %s: %s\n", path, strerror(errno));
    }
}

static void print_file(const char* what, int directory, const char* path) {
    char bytes[256] = {0};
    const int fd = openat(directory, path, O_RDONLY);
    if (fd < 0) {
        printf("%s: %s\n", what, strerror(errno));
        return;
    }
    const ssize_t count = read(fd, bytes, sizeof bytes - 1);
    close(fd);
    printf("%s: %zd bytes: %s", what, count, bytes);
}

static void show(const char* what, long result) {
    if (result != 0) {
        printf("%s: %s\n", what, strerror(errno));
    }
}

static long entries_of(const char* path) {
    DIR* directory = opendir(path);
    if (directory == NULL) {
        return -errno;
    }
    long count = 0;
    for (struct dirent* entry = readdir(directory); entry != NULL; entry = readdir(directory)) {
        count += strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0;
    }
    closedir(directory);
    return count;
}

int main(int argc, char** argv) {
    char absolute[4096];
    if (argc < 3 || chdir(argv[1]) != 0 || getcwd(absolute, sizeof absolute - 8) == NULL) {
        return 2;
    }
    strcat(absolute, "/file");
    write_file(AT_FDCWD, "file", O_TRUNC, "first\n");

    show("symlink", symlink("file", "relative"));
    print_file("through a relative symlink", AT_FDCWD, "relative");
    show("symlink", symlink(absolute, "absolute"));
    print_file("through an absolute symlink", AT_FDCWD, "absolute");
    show("symlink", symlink("relative", "chained"));
    long opened = 0;
    for (long round = atol(argv[2]); round > 0; round--) {
        const int fd = open("chained", O_RDONLY);
        opened += fd >= 0 && close(fd) == 0;
    }
    printf("through two symlinks: %ld opened\n", opened);

    show("symlink", symlink("/bin/sh", "system-link"));
    char magic[4] = {0};
    const int system_file = open("system-link", O_RDONLY);
    printf("a system file through a symlink: %s\n",
           system_file >= 0 && read(system_file, magic, 4) == 4 && memcmp(magic, "\177ELF", 4) == 0
               ? "a program"
               : strerror(errno));
    close(system_file);
    show("symlink", symlink("/bin/true", "program-link"));
    const pid_t child = fork();
    if (child == 0) {
        execl("./program-link", "program-link", (char*)NULL);
        _exit(127);
    }
    int status = -1;
    waitpid(child, &status, 0);
    printf("ran through a symlink: exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);

    show("mkdir", mkdir("dir", 0755));
    show("symlink", symlink("dir", "dirlink"));
    write_file(AT_FDCWD, "dirlink/inner", O_EXCL, "through the directory's symlink\n");
    print_file("made through a symlink, read by its name", AT_FDCWD, "dir/inner");
    print_file("read through the directory's symlink", AT_FDCWD, "dirlink/inner");

    const int directory = open("dir", O_RDONLY | O_DIRECTORY);
    printf("the directory made, opened: %s\n", directory >= 0 ? "yes" : strerror(errno));
    write_file(directory, "made", O_EXCL, "made from the directory's descriptor\n");
    print_file("read by its path", AT_FDCWD, "dir/made");
    print_file("read from the descriptor", directory, "made");
    printf("listed: %ld entries\n", entries_of("dir"));

    show("link", link("file", "hard"));
    write_file(AT_FDCWD, "hard", O_APPEND, "appended through the hard link\n");
    print_file("the file, after a write through its hard link", AT_FDCWD, "file");
    print_file("the hard link", AT_FDCWD, "hard");
    show("unlink", unlink("file"));
    print_file("the hard link, the first name removed", AT_FDCWD, "hard");

    show("mkdir", mkdir("old", 0755));
    write_file(AT_FDCWD, "old/moved", O_EXCL, "in the renamed directory\n");
    show("rename", rename("old", "new"));
    print_file("by its new path", AT_FDCWD, "new/moved");
    print_file("by its old path", AT_FDCWD, "old/moved");

    show("unlink", unlink("relative"));
    print_file("through the removed symlink", AT_FDCWD, "relative");
    print_file("through a symlink to it", AT_FDCWD, "chained");

    show("chdir", chdir("new"));
    print_file("from a directory made, by ..", AT_FDCWD, "../dir/made");
    show("chdir", chdir("../dir"));
    print_file("after a chdir by .. into another", AT_FDCWD, "made");
    show("chdir", chdir(".."));

    close(directory);
    const char* names[] = {"absolute", "chained",   "dirlink",     "dir/inner",   "dir/made",
                           "hard",     "new/moved", "system-link", "program-link"};
    for (size_t name = 0; name < sizeof names / sizeof names[0]; name++) {
        show(names[name], unlink(names[name]));
    }
    show("rmdir", rmdir("dir"));
    show("rmdir", rmdir("new"));
    return 0;
}
