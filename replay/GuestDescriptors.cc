#include "GuestDescriptors.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>

namespace hermit::replay {

namespace {

std::string proc_fd_path(pid_t host_pid, int fd) {
    return "/proc/" + std::to_string(host_pid) + "/fd/" + std::to_string(fd);
}

} // namespace

GuestDescriptors::~GuestDescriptors() {
    for (const auto& [pid, pidfd] : pidfds_) {
        close(pidfd);
    }
}

void GuestDescriptors::forget(pid_t host_pid) {
    auto found = pidfds_.find(host_pid);
    if (found != pidfds_.end()) {
        close(found->second);
        pidfds_.erase(found);
    }
}

int GuestDescriptors::duplicate(pid_t host_pid, int fd) {
    auto found = pidfds_.find(host_pid);
    if (found == pidfds_.end()) {
        int pidfd = static_cast<int>(syscall(SYS_pidfd_open, host_pid, 0));
        if (pidfd < 0) {
            return -1;
        }
        found = pidfds_.emplace(host_pid, pidfd).first;
    }
    return static_cast<int>(syscall(SYS_pidfd_getfd, found->second, fd, 0));
}

bool GuestDescriptors::read_would_wait(pid_t host_pid, int fd) {
    int copy = duplicate(host_pid, fd);
    if (copy < 0) {
        return false;
    }
    bool waits = false;
    int flags = fcntl(copy, F_GETFL);
    if (flags >= 0 && (flags & O_NONBLOCK) == 0) {
        pollfd request{copy, POLLIN, 0};
        waits = poll(&request, 1, 0) == 0;
    }
    close(copy);
    return waits;
}

bool GuestDescriptors::write_would_wait(pid_t host_pid, int fd, size_t length) {
    int copy = duplicate(host_pid, fd);
    if (copy < 0) {
        return false;
    }
    bool waits = false;
    struct stat info {};
    int flags = fcntl(copy, F_GETFL);
    if (flags >= 0 && (flags & O_NONBLOCK) == 0 && fstat(copy, &info) == 0 && S_ISFIFO(info.st_mode)) {
        int capacity = fcntl(copy, F_GETPIPE_SZ);
        int queued = 0;
        if (capacity > 0 && ioctl(copy, FIONREAD, &queued) == 0) {
            size_t free_space = static_cast<size_t>(capacity - queued);
            // A write larger than the whole pipe always waits for the reader part-way; waiting for an empty
            // pipe first is the best that can be done without splitting the guest's write.
            size_t needed = length < static_cast<size_t>(capacity) ? length : static_cast<size_t>(capacity);
            waits = free_space < needed;
        }
    }
    close(copy);
    return waits;
}

std::optional<ObjectIdentity> GuestDescriptors::identity(pid_t host_pid, int fd) {
    struct stat info {};
    if (stat(proc_fd_path(host_pid, fd).c_str(), &info) != 0) {
        return std::nullopt;
    }
    return ObjectIdentity{info.st_dev, info.st_ino};
}

bool GuestDescriptors::is_stream(pid_t host_pid, int fd) {
    struct stat info {};
    if (stat(proc_fd_path(host_pid, fd).c_str(), &info) != 0) {
        return false;
    }
    return S_ISFIFO(info.st_mode) || S_ISSOCK(info.st_mode);
}

std::optional<ObjectIdentity> GuestDescriptors::own_identity(int fd) {
    struct stat info {};
    if (fstat(fd, &info) != 0) {
        return std::nullopt;
    }
    return ObjectIdentity{info.st_dev, info.st_ino};
}

std::optional<std::string> GuestDescriptors::path(pid_t host_pid, int fd) {
    char buffer[PATH_MAX];
    ssize_t length = readlink(proc_fd_path(host_pid, fd).c_str(), buffer, sizeof buffer);
    if (length <= 0 || static_cast<size_t>(length) >= sizeof buffer) {
        return std::nullopt;
    }
    return std::string(buffer, static_cast<size_t>(length));
}

} // namespace hermit::replay
