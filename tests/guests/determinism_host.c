// Host facts: uname, the CPU count seen through /proc/cpuinfo, sysconf, sched_getaffinity and getcpu, and
// the metadata of files the guest creates (timestamps, inode and device numbers, directory order).
// Natively the timestamps and inode numbers change from run to run (and the rest tells which host this
// is); under hermit they are those of the virtual machine, the same on every host.
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

static int cpuinfo_processors(void) {
    FILE* file = fopen("/proc/cpuinfo", "r");
    char line[512];
    int processors = 0;
    while (file != NULL && fgets(line, sizeof line, file) != NULL) {
        processors += strncmp(line, "processor", 9) == 0;
    }
    if (file != NULL) {
        fclose(file);
    }
    return processors;
}

// Creates a few files in `directory` (a fresh one under argv[1]) and prints their metadata and listing.
static void print_files(const char* parent) {
    char directory[4096];
    snprintf(directory, sizeof directory, "%s/listing", parent);
    mkdir(directory, 0755);
    static const char* const kNames[] = {"kiwi", "apple", "mango", "fig", "banana", "cherry"};
    for (size_t index = 0; index < sizeof kNames / sizeof kNames[0]; ++index) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", directory, kNames[index]);
        const int fd = open(path, O_CREAT | O_WRONLY, 0644);
        write(fd, kNames[index], strlen(kNames[index]));
        close(fd);
        struct stat status;
        stat(path, &status);
        printf("%s size %lld ino %llu dev %llu mtime %lld.%09ld ctime %lld atime %lld\n", kNames[index],
               (long long)status.st_size, (unsigned long long)status.st_ino,
               (unsigned long long)status.st_dev, (long long)status.st_mtim.tv_sec, status.st_mtim.tv_nsec,
               (long long)status.st_ctim.tv_sec, (long long)status.st_atim.tv_sec);
    }
    DIR* listing = opendir(directory);
    printf("listing");
    for (struct dirent* entry; (entry = readdir(listing)) != NULL;) {
        printf(" %s:%llu", entry->d_name, (unsigned long long)entry->d_ino);
    }
    printf("\n");
    closedir(listing);
}

int main(int argc, char** argv) {
    struct utsname name;
    uname(&name);
    printf("uname %s %s %s %s %s\n", name.sysname, name.nodename, name.release, name.version, name.machine);
    char host[256] = {0};
    gethostname(host, sizeof host);
    printf("hostname %s\n", host);
    cpu_set_t cpus;
    sched_getaffinity(0, sizeof cpus, &cpus);
    printf("cpuinfo %d online %ld configured %ld affinity %d\n", cpuinfo_processors(),
           sysconf(_SC_NPROCESSORS_ONLN), sysconf(_SC_NPROCESSORS_CONF), CPU_COUNT(&cpus));
    unsigned cpu = 99, node = 99;
    syscall(SYS_getcpu, &cpu, &node, NULL);
    printf("getcpu %u node %u sched_getcpu %d\n", cpu, node, sched_getcpu());
    if (argc > 1) {
        print_files(argv[1]);
    }
    return 0;
}
