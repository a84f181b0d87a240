// Opens /dev/urandom argv[1] times (the Virtualizer serves each open from a fresh generated file), reads
// 16 bytes from each and prints a digest of all of them: its recording must not hold those files.
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv) {
    int opens = argc > 1 ? atoi(argv[1]) : 1;
    uint64_t digest = 1469598103934665603ULL; // FNV-1a
    for (int i = 0; i < opens; i++) {
        unsigned char bytes[16];
        int fd = open("/dev/urandom", O_RDONLY);
        if (fd < 0 || read(fd, bytes, sizeof bytes) != (ssize_t)sizeof bytes) {
            return 11;
        }
        close(fd);
        for (size_t j = 0; j < sizeof bytes; j++) {
            digest = (digest ^ bytes[j]) * 1099511628211ULL;
        }
    }
    printf("%d opens, digest %016llx\n", opens, (unsigned long long)digest);
    return 0;
}
