// Reads and writes regular files in the ways whose results the tracer must reproduce when it performs
// them itself (replay/GuestFileIo): offsets, short reads, end of file, pread/pwrite, O_APPEND, errors, a
// /proc file. Writes one line per call to the report file argv[2]; argv[1] is a scratch directory.
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int report;

static void note(const char* what, ssize_t result, const char* bytes) {
    char line[256];
    int length = snprintf(line, sizeof line, "%s = %zd%s%s %s\n", what, result, result < 0 ? " errno " : "",
                          result < 0 ? strerror(errno) : "", bytes ? bytes : "");
    if (write(report, line, (size_t)length) != length) {
        _exit(3);
    }
}

int main(int argc, char** argv) {
    if (argc < 3) {
        return 2;
    }
    report = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0600);
    char path[4096], buffer[128];
    snprintf(path, sizeof path, "%s/data", argv[1]);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    note("write", write(fd, "hello world", 11), NULL);
    note("lseek", lseek(fd, 0, SEEK_SET), NULL);
    memset(buffer, 0, sizeof buffer);
    note("read 5", read(fd, buffer, 5), buffer);
    memset(buffer, 0, sizeof buffer);
    note("read 100", read(fd, buffer, 100), buffer);
    note("read at end", read(fd, buffer, 100), NULL);
    note("pwrite at 3", pwrite(fd, "XY", 2, 3), NULL);
    memset(buffer, 0, sizeof buffer);
    note("pread at 2", pread(fd, buffer, 4, 2), buffer);
    note("offset", lseek(fd, 0, SEEK_CUR), NULL);
    note("pread at -1", pread(fd, buffer, 4, -1), NULL);
    note("rewind", lseek(fd, 0, SEEK_SET), NULL);
    note("read into unmapped memory", read(fd, (void*)4096, 4), NULL);
    note("offset after the fault", lseek(fd, 0, SEEK_CUR), NULL);
    note("lseek whence 99", lseek(fd, 0, 99), NULL);
    close(fd);

    snprintf(path, sizeof path, "%s/appended", argv[1]);
    int appending = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);
    note("append a", write(appending, "a", 1), NULL);
    note("seek to 0", lseek(appending, 0, SEEK_SET), NULL);
    note("append b", write(appending, "b", 1), NULL);
    note("read write-only", read(appending, buffer, 1), NULL);
    close(appending);
    int reading = open(path, O_RDONLY);
    memset(buffer, 0, sizeof buffer);
    note("read appended", read(reading, buffer, sizeof buffer - 1), buffer);
    note("write read-only", write(reading, "c", 1), NULL);
    close(reading);

    int comm = open("/proc/self/comm", O_RDONLY);
    memset(buffer, 0, sizeof buffer);
    note("read /proc/self/comm", read(comm, buffer, sizeof buffer - 1), buffer);
    close(comm);
    return 0;
}
