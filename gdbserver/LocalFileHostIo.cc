#include "LocalFileHostIo.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace hermit::gdbserver {

namespace {

HostIoResult failure(int error) {
    return {-1, error};
}

} // namespace

LocalFileHostIo::~LocalFileHostIo() {
    for (int fd : open_fds_) {
        ::close(fd);
    }
}

bool LocalFileHostIo::owns(int fd) const {
    return std::find(open_fds_.begin(), open_fds_.end(), fd) != open_fds_.end();
}

HostIoResult LocalFileHostIo::open(const std::string& path, int flags, uint32_t) {
    if ((flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC | O_APPEND)) != 0) {
        return failure(EACCES);
    }
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return failure(errno);
    }
    open_fds_.push_back(fd);
    return {fd, 0};
}

HostIoResult LocalFileHostIo::pread(int fd, size_t count, uint64_t offset, std::vector<uint8_t>& data) {
    if (!owns(fd)) {
        return failure(EBADF);
    }
    data.resize(count);
    ssize_t n = ::pread(fd, data.data(), count, static_cast<off_t>(offset));
    if (n < 0) {
        data.clear();
        return failure(errno);
    }
    data.resize(static_cast<size_t>(n));
    return {n, 0};
}

HostIoResult LocalFileHostIo::close(int fd) {
    if (!owns(fd)) {
        return failure(EBADF);
    }
    open_fds_.erase(std::find(open_fds_.begin(), open_fds_.end(), fd));
    ::close(fd);
    return {0, 0};
}

HostIoResult LocalFileHostIo::fstat(int fd, struct ::stat& stat_buffer) {
    if (!owns(fd)) {
        return failure(EBADF);
    }
    if (::fstat(fd, &stat_buffer) != 0) {
        return failure(errno);
    }
    return {stat_buffer.st_size, 0};
}

// The guest's paths are the host's paths, so every process shares the one file-system view.
HostIoResult LocalFileHostIo::setfs(int64_t) {
    return {0, 0};
}

} // namespace hermit::gdbserver
