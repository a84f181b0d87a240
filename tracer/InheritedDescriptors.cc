#include "InheritedDescriptors.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>

namespace hermit::tracer {

namespace {

InheritedDescriptor::Kind kind_of(mode_t mode) {
    if (S_ISDIR(mode)) {
        return InheritedDescriptor::Kind::Directory;
    }
    if (S_ISFIFO(mode)) {
        return InheritedDescriptor::Kind::Pipe;
    }
    if (S_ISSOCK(mode)) {
        return InheritedDescriptor::Kind::Socket;
    }
    return InheritedDescriptor::Kind::File;
}

constexpr int kKeptStatusFlags = O_APPEND | O_NONBLOCK;

// A new descriptor like `descriptor` (any number), or -1.
int make_stand_in(const InheritedDescriptor& descriptor) {
    const int access = static_cast<int>(descriptor.status_flags) & O_ACCMODE;
    switch (descriptor.kind) {
    case InheritedDescriptor::Kind::File:
        return open("/dev/null", access | (static_cast<int>(descriptor.status_flags) & kKeptStatusFlags));
    case InheritedDescriptor::Kind::Directory:
        return open("/", O_RDONLY | O_DIRECTORY);
    case InheritedDescriptor::Kind::Pipe: {
        int ends[2];
        if (pipe(ends) != 0) {
            return -1;
        }
        const int kept = access == O_WRONLY ? 1 : 0;
        close(ends[1 - kept]);
        return ends[kept];
    }
    case InheritedDescriptor::Kind::Socket: {
        int ends[2];
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, ends) != 0) {
            return -1;
        }
        close(ends[1]);
        return ends[0];
    }
    }
    return -1;
}

} // namespace

std::vector<InheritedDescriptor> inheritable_descriptors() {
    std::vector<InheritedDescriptor> descriptors;
    DIR* directory = opendir("/proc/self/fd");
    if (directory == nullptr) {
        return descriptors;
    }
    const int own = dirfd(directory);
    while (const dirent* entry = readdir(directory)) {
        const int fd = std::atoi(entry->d_name);
        struct stat info {};
        const int fd_flags = fd > 2 && fd != own ? fcntl(fd, F_GETFD) : -1;
        if (fd_flags < 0 || (fd_flags & FD_CLOEXEC) != 0 || fstat(fd, &info) != 0) {
            continue;
        }
        const int status_flags = fcntl(fd, F_GETFL);
        descriptors.push_back(InheritedDescriptor{
            fd, kind_of(info.st_mode), static_cast<uint32_t>(status_flags & (O_ACCMODE | kKeptStatusFlags))});
    }
    closedir(directory);
    std::sort(
        descriptors.begin(), descriptors.end(),
        [](const InheritedDescriptor& left, const InheritedDescriptor& right) { return left.fd < right.fd; });
    return descriptors;
}

const char* install_stand_ins(const std::vector<InheritedDescriptor>& descriptors) {
    for (const InheritedDescriptor& descriptor : descriptors) {
        const int stand_in = make_stand_in(descriptor);
        if (stand_in < 0) {
            return "making a stand-in for an inherited descriptor";
        }
        if (stand_in != descriptor.fd) {
            if (dup2(stand_in, descriptor.fd) < 0) {
                return "dup2 of a stand-in descriptor";
            }
            close(stand_in);
        }
    }
    unsigned int first = 3;
    for (const InheritedDescriptor& descriptor : descriptors) {
        const auto fd = static_cast<unsigned int>(descriptor.fd);
        if (fd > first) {
            syscall(SYS_close_range, first, fd - 1, 0);
        }
        first = fd + 1;
    }
    syscall(SYS_close_range, first, UINT_MAX, 0);
    return nullptr;
}

} // namespace hermit::tracer
