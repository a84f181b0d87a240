#include "GuestDescriptors.h"

#include "tracer/ProcFs.h"
#include "tracer/Task.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <filesystem>

namespace hermit::replay {

namespace {} // namespace

std::optional<ObjectIdentity> GuestDescriptors::identity(pid_t host_pid, int fd) {
    const auto object = tracer::procfs::descriptor_object(host_pid, fd);
    return object ? std::optional(ObjectIdentity{object->first, object->second}) : std::nullopt;
}

bool GuestDescriptors::is_stream(pid_t host_pid, int fd) {
    struct stat info {};
    if (stat(tracer::procfs::descriptor_link(host_pid, fd).c_str(), &info) != 0) {
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
    ssize_t length = readlink(tracer::procfs::descriptor_link(host_pid, fd).c_str(), buffer, sizeof buffer);
    if (length <= 0 || static_cast<size_t>(length) >= sizeof buffer) {
        return std::nullopt;
    }
    return std::string(buffer, static_cast<size_t>(length));
}

std::string GuestDescriptors::absolute_path(tracer::Task& task, int dirfd, const std::string& path) {
    if (path.starts_with("/")) {
        return std::filesystem::path(path).lexically_normal().string();
    }
    const std::string base = dirfd == AT_FDCWD ? task.working_directory_path()
                                               : GuestDescriptors::path(task.host_tid(), dirfd).value_or("");
    return base.empty() ? base : (std::filesystem::path(base) / path).lexically_normal().string();
}

} // namespace hermit::replay
