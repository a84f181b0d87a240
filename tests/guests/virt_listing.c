// Lists a directory of 40 files (made in reverse name order in argv[1]) with getdents64 and a small buffer,
// argv[2] times, and tries the calls' failures. Prints the names sorted (as natively); with argv[3] "raw",
// also each returned chunk as it came, with inode numbers.
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { kFiles = 40, kBufferBytes = 256 };

struct record {
    unsigned long long inode;
    long long offset;
    unsigned short length;
    unsigned char type;
    char name[];
};

static long list(int fd, void* buffer, unsigned count) {
    return syscall(SYS_getdents64, fd, buffer, count);
}

static int compare(const void* a, const void* b) {
    return strcmp(*(char* const*)a, *(char* const*)b);
}

// One listing from the start: the number of getdents64 calls with records; the names into `names`.
static int list_all(const char* directory, char names[][16], int* count, int raw) {
    int fd = open(directory, O_RDONLY | O_DIRECTORY);
    char buffer[kBufferBytes];
    int chunks = 0;
    *count = 0;
    for (long length; (length = list(fd, buffer, sizeof buffer)) > 0; ++chunks) {
        if (raw) {
            printf("chunk:");
        }
        for (long at = 0; at < length;) {
            struct record* entry = (struct record*)(buffer + at);
            if (raw) {
                printf(" %s:%llu", entry->name, entry->inode);
            }
            snprintf(names[(*count)++], sizeof names[0], "%.15s", entry->name);
            at += entry->length;
        }
        if (raw) {
            printf("\n");
        }
    }
    close(fd);
    return chunks;
}

static void print_failure(const char* what, long result) {
    printf("%s: %ld %s\n", what, result, result < 0 ? strerror(errno) : "");
}

int main(int argc, char** argv) {
    const char* directory = argv[1];
    const int rounds = atoi(argv[2]);
    const int raw = argc > 3 && strcmp(argv[3], "raw") == 0;
    char path[4096];
    for (int index = kFiles - 1; index >= 0; --index) {
        snprintf(path, sizeof path, "%s/f%02d", directory, index);
        close(open(path, O_WRONLY | O_CREAT, 0644));
    }

    static char names[kFiles + 2][16];
    int count = 0;
    int chunks = list_all(directory, names, &count, raw);
    for (int round = 1; round < rounds; ++round) {
        int again = 0;
        if (list_all(directory, names, &again, 0) != chunks || again != count) {
            printf("round %d differs\n", round);
            return 1;
        }
    }
    char* sorted[kFiles + 2];
    for (int index = 0; index < count; ++index) {
        sorted[index] = names[index];
    }
    qsort(sorted, count, sizeof sorted[0], compare);
    printf("%d names in %d chunks:", count, chunks);
    for (int index = 0; index < count; ++index) {
        printf(" %s", sorted[index]);
    }
    printf("\n");

    char buffer[kBufferBytes];
    snprintf(path, sizeof path, "%s/f00", directory);
    int file = open(path, O_RDONLY);
    print_failure("regular file", list(file, buffer, sizeof buffer));
    close(file);
    print_failure("closed descriptor", list(1000, buffer, sizeof buffer));
    int fd = open(directory, O_RDONLY | O_DIRECTORY);
    print_failure("buffer too small", list(fd, buffer, 1));
    print_failure("unwritable buffer", list(fd, (void*)8, sizeof buffer));
    // A failed call reads nothing: the next one starts where a fresh listing does.
    long length = list(fd, buffer, sizeof buffer);
    char first[256];
    snprintf(first, sizeof first, "%s", ((struct record*)buffer)->name);
    lseek(fd, 0, SEEK_SET);
    list(fd, buffer, sizeof buffer);
    printf("after the failures: %s\n",
           length > 0 && strcmp(first, ((struct record*)buffer)->name) == 0 ? "from the start" : "moved on");
    close(fd);
    return 0;
}
