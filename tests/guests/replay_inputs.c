// Reads every kind of outside input replay must reproduce: the clock, getrandom, /dev/urandom, a file
// named by argv[1] and stdin, then prints them all.
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void print_hex(const char* label, const unsigned char* bytes, size_t length) {
    printf("%s ", label);
    for (size_t i = 0; i < length; i++) {
        printf("%02x", bytes[i]);
    }
    printf("\n");
}

int main(int argc, char** argv) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    printf("realtime %lld.%09ld\n", (long long)now.tv_sec, now.tv_nsec);
    clock_gettime(CLOCK_MONOTONIC, &now);
    printf("monotonic %lld.%09ld\n", (long long)now.tv_sec, now.tv_nsec);
    printf("time %lld\n", (long long)time(NULL));

    unsigned char random_bytes[16];
    if (getrandom(random_bytes, sizeof random_bytes, 0) != (ssize_t)sizeof random_bytes) {
        return 10;
    }
    print_hex("getrandom", random_bytes, sizeof random_bytes);

    int urandom = open("/dev/urandom", O_RDONLY);
    if (urandom < 0 || read(urandom, random_bytes, sizeof random_bytes) != (ssize_t)sizeof random_bytes) {
        return 11;
    }
    close(urandom);
    print_hex("urandom", random_bytes, sizeof random_bytes);

    if (argc > 1) {
        struct stat info;
        int file = open(argv[1], O_RDONLY);
        if (file < 0 || fstat(file, &info) != 0) {
            return 12;
        }
        char contents[4096];
        ssize_t length = read(file, contents, sizeof contents - 1);
        if (length < 0) {
            return 13;
        }
        close(file);
        printf("file size %lld mtime %lld: %.*s\n", (long long)info.st_size, (long long)info.st_mtime,
               (int)length, contents);
    }

    char line[4096];
    ssize_t total = 0, length;
    while ((length = read(0, line + total, sizeof line - 1 - total)) > 0) {
        total += length;
    }
    printf("stdin %zd bytes: %.*s\n", total, (int)total, line);
    fflush(stdout);
    fprintf(stderr, "replay_inputs done\n");
    return 7;
}
