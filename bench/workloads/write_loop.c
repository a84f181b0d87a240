// Syscall-bound: N small write() calls to a file (default 200000 writes of 16 bytes).
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: write_loop FILE [COUNT]\n");
        return 2;
    }
    long count = argc > 2 ? atol(argv[2]) : 200000;
    int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        perror(argv[1]);
        return 1;
    }
    for (long i = 0; i < count; ++i) {
        if (write(fd, "0123456789abcde\n", 16) != 16) {
            perror("write");
            return 1;
        }
    }
    close(fd);
    unlink(argv[1]);
    return 0;
}
