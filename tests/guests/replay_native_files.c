// Reads and writes regular files in the ways a recording must reproduce although they run natively (only
// sockets and the like are trapped): an input file read in small chunks, a file written through one
// descriptor and read through another, a file removed and created again, one renamed over another, a
// pipe of its own at the number a regular file had, and the input read again at the number a socket of a
// socket pair had. argv[1]:
// the input file; argv[2]: a scratch directory.
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void check(int ok, const char* what) {
    if (!ok) {
        perror(what);
        exit(1);
    }
}

int main(int argc, char** argv) {
    if (argc < 3) {
        return 2;
    }
    char path[4096], renamed[4096], buffer[64] = {0};
    snprintf(path, sizeof path, "%s/shared", argv[2]);
    snprintf(renamed, sizeof renamed, "%s/shared.tmp", argv[2]);

    int input = open(argv[1], O_RDONLY);
    check(input >= 0, "open input");
    unsigned checksum = 0;
    int reads = 0;
    ssize_t count;
    char chunk[8];
    while ((count = read(input, chunk, sizeof chunk)) > 0) {
        reads++;
        for (ssize_t index = 0; index < count; index++) {
            checksum = checksum * 31 + (unsigned char)chunk[index];
        }
    }
    printf("input: %d reads, checksum %u\n", reads, checksum);
    const int freed = input;
    close(input);

    int writer = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    int reader = open(path, O_RDONLY);
    check(writer >= 0 && reader >= 0, "open shared");
    check(write(writer, "first", 5) == 5, "write");
    count = read(reader, buffer, sizeof buffer - 1);
    printf("read back %zd: %.*s\n", count, (int)count, buffer);
    check(pwrite(writer, "FI", 2, 0) == 2, "pwrite");
    count = pread(reader, buffer, 5, 0);
    printf("pread back %zd: %.*s\n", count, (int)count, buffer);
    close(writer);
    close(reader);

    check(unlink(path) == 0, "unlink");
    int again = open(path, O_RDWR | O_CREAT, 0600);
    check(again >= 0, "open again");
    check(write(again, "new", 3) == 3, "write again");
    lseek(again, 0, SEEK_SET);
    count = read(again, buffer, sizeof buffer - 1);
    printf("created again %zd: %.*s\n", count, (int)count, buffer);
    close(again);

    int temporary = open(renamed, O_WRONLY | O_CREAT | O_EXCL, 0600);
    check(temporary >= 0 && write(temporary, "renamed over", 12) == 12, "write renamed");
    close(temporary);
    check(rename(renamed, path) == 0, "rename");
    int renamed_file = open(path, O_RDONLY);
    count = read(renamed_file, buffer, sizeof buffer - 1);
    printf("after rename %zd: %.*s\n", count, (int)count, buffer);
    close(renamed_file);

    int ends[2];
    check(pipe(ends) == 0, "pipe");
    printf("pipe read end at the number the input had: %s\n", ends[0] == freed ? "yes" : "no");
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        close(ends[0]);
        _exit(write(ends[1], "through the pipe", 16) == 16 ? 0 : 1);
    }
    close(ends[1]);
    count = read(ends[0], buffer, sizeof buffer - 1);
    int status = 0;
    waitpid(child, &status, 0);
    printf("pipe %zd: %.*s, child %d\n", count, (int)count, buffer, WEXITSTATUS(status));
    close(ends[0]);

    // A socket pair is trapped (unlike the guest's own pipes): once it is closed, the input opened at
    // the number one of its sockets had reads natively again.
    int sockets[2];
    check(socketpair(AF_UNIX, SOCK_STREAM, 0, sockets) == 0, "socketpair");
    check(write(sockets[1], "socket", 6) == 6, "write socket");
    count = read(sockets[0], buffer, sizeof buffer - 1);
    printf("socket %zd: %.*s\n", count, (int)count, buffer);
    const int socket_number = sockets[0];
    close(sockets[0]);
    close(sockets[1]);
    int input_again = open(argv[1], O_RDONLY);
    check(input_again >= 0, "open input again");
    unsigned checksum_again = 0;
    int reads_again = 0;
    while ((count = read(input_again, chunk, sizeof chunk)) > 0) {
        reads_again++;
        for (ssize_t index = 0; index < count; index++) {
            checksum_again = checksum_again * 31 + (unsigned char)chunk[index];
        }
    }
    printf("input again at the socket's number: %s, %d reads, same checksum: %s\n",
           input_again == socket_number ? "yes" : "no", reads_again,
           checksum_again == checksum ? "yes" : "no");
    return 0;
}
