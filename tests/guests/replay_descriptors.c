// Lists which descriptors 3-9 it inherited, reads from descriptor 4 and writes to descriptor 7 when
// they are open, then opens argv[1] and prints the number it got: the numbers of a replay must match.
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char** argv) {
    printf("inherited:");
    for (int fd = 3; fd <= 9; fd++) {
        if (fcntl(fd, F_GETFD) >= 0) {
            printf(" %d", fd);
        }
    }
    printf("\n");
    char bytes[64];
    ssize_t length = read(4, bytes, sizeof bytes);
    if (length >= 0) {
        printf("read %zd bytes from 4: %.*s\n", length, (int)length, bytes);
    }
    if (write(7, "to 7\n", 5) == 5) {
        printf("wrote to 7\n");
    }
    int file = open(argc > 1 ? argv[1] : "/etc/hostname", O_RDONLY);
    printf("opened at %d\n", file);
    close(file);
    return 0;
}
