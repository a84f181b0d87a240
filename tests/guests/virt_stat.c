// Stats files with every flavour of the stat family (relative and absolute paths, dirfd, AT_EMPTY_PATH,
// fstat, symlinks with and without AT_SYMLINK_NOFOLLOW, statx, "..", /proc) and the usual errors, in the
// directory given as argv[1]. Prints, per call, the result and the fields the guest's own actions
// determine on one line, and the fields hermit virtualizes (device, inode, times) on a "virtual" line.
// With a count as argv[2], it then stats the same file and the same missing name, and the file with statx
// as `ls -l` does, that many times more (to count ptrace stops).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static void print_stat(const char* label, int result, const struct stat* status) {
    if (result != 0) {
        printf("%s: error %s\n", label, strerrorname_np(errno));
        return;
    }
    printf("%s: mode %o size %lld nlink %lu uid %u gid %u\n", label, status->st_mode,
           (long long)status->st_size, (unsigned long)status->st_nlink, status->st_uid, status->st_gid);
    printf("%s virtual: dev %lu ino %lu mtime %lld.%09ld ctime %lld\n", label, (unsigned long)status->st_dev,
           (unsigned long)status->st_ino, (long long)status->st_mtim.tv_sec, status->st_mtim.tv_nsec,
           (long long)status->st_ctim.tv_sec);
}

static void print_statx(const char* label, int result, const struct statx* status) {
    if (result != 0) {
        printf("%s: error %s\n", label, strerrorname_np(errno));
        return;
    }
    printf("%s: mask %x mode %o size %llu nlink %u uid %u gid %u\n", label, status->stx_mask,
           status->stx_mode, (unsigned long long)status->stx_size, status->stx_nlink, status->stx_uid,
           status->stx_gid);
    printf("%s virtual: dev %u:%u ino %llu mtime %lld btime %lld mnt %llu\n", label, status->stx_dev_major,
           status->stx_dev_minor, (unsigned long long)status->stx_ino, (long long)status->stx_mtime.tv_sec,
           (long long)status->stx_btime.tv_sec, (unsigned long long)status->stx_mnt_id);
}

// The raw syscall: glibc checks some arguments itself.
static int raw_fstatat(int dirfd, const char* path, void* buffer, int flags) {
    return (int)syscall(SYS_newfstatat, dirfd, path, buffer, flags);
}

int main(int argc, char** argv) {
    if (argc < 2 || argc > 3 || chdir(argv[1]) != 0) {
        fprintf(stderr, "usage: virt_stat DIRECTORY [COUNT]\n");
        return 2;
    }
    // A fresh tree: f (5 bytes), d/g, l -> f, dangling -> missing, closed/ (mode 0) holding h.
    unlink("f");
    unlink("d/g");
    rmdir("d");
    unlink("l");
    unlink("dangling");
    chmod("closed", 0700);
    unlink("closed/h");
    rmdir("closed");
    FILE* file = fopen("f", "w");
    fputs("hello", file);
    fclose(file);
    mkdir("d", 0755);
    close(open("d/g", O_WRONLY | O_CREAT, 0600));
    symlink("f", "l");
    symlink("missing", "dangling");
    mkdir("closed", 0700);
    close(open("closed/h", O_WRONLY | O_CREAT, 0644));
    chmod("closed", 0);

    char absolute[4096];
    snprintf(absolute, sizeof absolute, "%s/f", argv[1]);
    char up[4096];
    const char* base = strrchr(argv[1], '/');
    snprintf(up, sizeof up, "..%s/f", base ? base : "/");

    struct stat status;
    print_stat("stat relative", stat("f", &status), &status);
    const ino_t relative_inode = status.st_ino;
    print_stat("stat absolute", stat(absolute, &status), &status);
    print_stat("stat through ..", stat(up, &status), &status);
    printf("same inode through ..: %s\n", status.st_ino == relative_inode ? "yes" : "no");
    print_stat("stat symlink", stat("l", &status), &status);
    print_stat("lstat symlink", lstat("l", &status), &status);
    print_stat("fstatat nofollow", raw_fstatat(AT_FDCWD, "l", &status, AT_SYMLINK_NOFOLLOW), &status);
    print_stat("stat dangling", stat("dangling", &status), &status);
    print_stat("lstat dangling", lstat("dangling", &status), &status);
    print_stat("stat missing", stat("missing", &status), &status);
    print_stat("stat not a directory", stat("f/x", &status), &status);
    print_stat("stat in closed directory", stat("closed/h", &status), &status);
    print_stat("stat empty path", raw_fstatat(AT_FDCWD, "", &status, 0), &status);
    print_stat("stat cwd by empty path", raw_fstatat(AT_FDCWD, "", &status, AT_EMPTY_PATH), &status);
    print_stat("stat bad buffer", raw_fstatat(AT_FDCWD, "f", (void*)8, 0), &status);
    print_stat("stat bad path", raw_fstatat(AT_FDCWD, (const char*)8, &status, 0), &status);
    print_stat("stat unknown flag", raw_fstatat(AT_FDCWD, "f", &status, 0x40000000), &status);
    print_stat("stat /proc/self", stat("/proc/self", &status), &status);

    const int directory = open("d", O_RDONLY | O_DIRECTORY);
    print_stat("fstatat dirfd", raw_fstatat(directory, "g", &status, 0), &status);
    print_stat("fstatat dirfd absolute", raw_fstatat(directory, absolute, &status, 0), &status);
    print_stat("fstatat file as dirfd", raw_fstatat(open("f", O_RDONLY), "x", &status, 0), &status);
    const int fd = open("f", O_RDONLY);
    print_stat("fstatat empty path", raw_fstatat(fd, "", &status, AT_EMPTY_PATH), &status);
    print_stat("fstat", fstat(fd, &status), &status);
    printf("same inode by descriptor: %s\n", status.st_ino == relative_inode ? "yes" : "no");
    print_stat("fstat closed descriptor", (int)syscall(SYS_fstat, 999, &status), &status);
    print_stat("fstat negative descriptor", (int)syscall(SYS_fstat, -100, &status), &status);
    int pipe_ends[2];
    pipe(pipe_ends);
    print_stat("fstat pipe", fstat(pipe_ends[0], &status), &status);
    const int path_only = open("l", O_PATH | O_NOFOLLOW);
    print_stat("fstat O_PATH symlink", fstat(path_only, &status), &status);

    struct statx extended;
    print_statx("statx", statx(AT_FDCWD, "f", 0, STATX_BASIC_STATS, &extended), &extended);
    print_statx("statx nofollow", statx(AT_FDCWD, "l", AT_SYMLINK_NOFOLLOW, STATX_ALL, &extended), &extended);
    print_statx("statx empty path", statx(fd, "", AT_EMPTY_PATH, STATX_TYPE | STATX_SIZE, &extended),
                &extended);
    print_statx("statx dont sync", statx(directory, "g", AT_STATX_DONT_SYNC, STATX_BASIC_STATS, &extended),
                &extended);
    print_statx("statx missing", statx(AT_FDCWD, "missing", 0, STATX_BASIC_STATS, &extended), &extended);
    print_statx("statx both sync flags",
                statx(AT_FDCWD, "f", AT_STATX_FORCE_SYNC | AT_STATX_DONT_SYNC, STATX_BASIC_STATS, &extended),
                &extended);
    chmod("closed", 0700);
    for (int repeat = argc == 3 ? atoi(argv[2]) : 0; repeat > 0; repeat--) {
        stat("f", &status);
        stat("missing", &status);
        statx(AT_FDCWD, "f", AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, STATX_BASIC_STATS, &extended); // as ls -l
    }
    return 0;
}
