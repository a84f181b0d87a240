// Descriptors a recording must trap although no open made them: a pipe end passed from another process
// over a Unix socket (SCM_RIGHTS), and a socket only once it is connected. A socket that never connected
// (like glibc's attempt to reach nscd) leaves its number free for a file whose reads run natively.
// argv[1]: a file. A replay emulates the recvmsg, which passes nothing: the file opened after the passed
// descriptor must still get the number it had when recorded, and closing the passed one must succeed.
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static int receive_descriptor(int channel) {
    char byte;
    struct iovec data = {&byte, 1};
    char control[CMSG_SPACE(sizeof(int))];
    struct msghdr message = {0};
    message.msg_iov = &data;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    if (recvmsg(channel, &message, 0) != 1) {
        return -1;
    }
    int fd = -1;
    memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&message)), sizeof fd);
    return fd;
}

static void send_descriptor(int channel, int fd) {
    char byte = 'x';
    struct iovec data = {&byte, 1};
    char control[CMSG_SPACE(sizeof(int))] = {0};
    struct msghdr message = {0};
    message.msg_iov = &data;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    struct cmsghdr* header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(header), &fd, sizeof fd);
    sendmsg(channel, &message, 0);
}

int main(int argc, char** argv) {
    if (argc < 2) {
        return 2;
    }
    int unconnected = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    strcpy(address.sun_path, "/nonexistent/hermit-test.socket");
    int connected = connect(unconnected, (struct sockaddr*)&address, sizeof address);
    close(unconnected);
    int file = open(argv[1], O_RDONLY);
    ssize_t count;
    unsigned checksum = 0;
    int reads = 0;
    char chunk[8];
    while ((count = read(file, chunk, sizeof chunk)) > 0) {
        reads++;
        for (ssize_t index = 0; index < count; index++) {
            checksum = checksum * 31 + (unsigned char)chunk[index];
        }
    }
    printf("connect %d; file at the socket's number: %s; %d reads, checksum %u\n", connected,
           file == unconnected ? "yes" : "no", reads, checksum);
    fflush(stdout);

    int channel[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, channel) != 0) {
        return 1;
    }
    pid_t child = fork();
    if (child == 0) {
        int ends[2];
        if (pipe(ends) != 0 || write(ends[1], "passed over a socket", 20) != 20) {
            _exit(1);
        }
        send_descriptor(channel[1], ends[0]);
        _exit(0);
    }
    int passed = receive_descriptor(channel[0]);
    char buffer[64];
    count = read(passed, buffer, sizeof buffer);
    int status = 0;
    waitpid(child, &status, 0);
    printf("passed descriptor read %zd: %.*s\n", count, (int)(count > 0 ? count : 0), buffer);
    int after = open(argv[1], O_RDONLY);
    printf("opened after it: %s; closing it: %d\n",
           after == passed + 1 ? "the next number" : "another number", close(passed));
    return 0;
}
