#include "FileIo.h"

#include "Error.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace hermit {

UniqueFd::~UniqueFd() {
    if (fd_ >= 0) {
        ::close(fd_);
    }
}

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) {
            ::close(fd_);
        }
        fd_ = other.release();
    }
    return *this;
}

int UniqueFd::release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
}

void throw_io_error(const std::string& recording, const std::filesystem::path& path, int errno_value) {
    throw Error(ErrorCode::RecordingIo, recording,
                fmt::format("{}: {}", path.string(), std::strerror(errno_value)));
}

UniqueFd create_private_file(const std::filesystem::path& path, const std::string& recording,
                             bool exclusive) {
    int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (exclusive ? O_EXCL : O_TRUNC);
    UniqueFd fd(::open(path.c_str(), flags, 0600));
    if (fd.get() < 0) {
        throw_io_error(recording, path, errno);
    }
    // The umask may have masked more or (if 0600 was not requested by an earlier creator) less.
    if (::fchmod(fd.get(), 0600) != 0) {
        throw_io_error(recording, path, errno);
    }
    return fd;
}

UniqueFd open_for_reading(const std::filesystem::path& path, const std::string& recording) {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) {
        throw_io_error(recording, path, errno);
    }
    return fd;
}

void create_private_directory(const std::filesystem::path& path, const std::string& recording) {
    std::error_code error;
    std::filesystem::create_directories(path, error);
    if (error) {
        throw_io_error(recording, path, error.value());
    }
    if (::chmod(path.c_str(), 0700) != 0) {
        throw_io_error(recording, path, errno);
    }
}

void write_all(int fd, std::span<const uint8_t> bytes, const std::filesystem::path& path,
               const std::string& recording) {
    while (!bytes.empty()) {
        ssize_t written = ::write(fd, bytes.data(), bytes.size());
        if (written < 0 && errno == EINTR) {
            continue;
        }
        if (written < 0) {
            throw_io_error(recording, path, errno);
        }
        bytes = bytes.subspan(static_cast<size_t>(written));
    }
}

size_t read_at(int fd, std::span<uint8_t> bytes, uint64_t offset, const std::filesystem::path& path,
               const std::string& recording) {
    size_t total = 0;
    while (total < bytes.size()) {
        ssize_t got =
            ::pread(fd, bytes.data() + total, bytes.size() - total, static_cast<off_t>(offset + total));
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got < 0) {
            throw_io_error(recording, path, errno);
        }
        if (got == 0) {
            break;
        }
        total += static_cast<size_t>(got);
    }
    return total;
}

} // namespace hermit
