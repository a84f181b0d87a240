#pragma once
// GuestDescriptors: what a guest's file descriptor names, seen from the tracer through /proc without
// running anything in the guest.

#include <sys/types.h>

#include <optional>
#include <string>

namespace hermit::tracer {
class Task;
}

namespace hermit::replay {

// The identity of an open object (device and inode, as fstat reports them).
struct ObjectIdentity {
    dev_t device = 0;
    ino_t inode = 0;
    bool operator==(const ObjectIdentity&) const = default;
};

class GuestDescriptors {
public:
    // The object behind a guest descriptor, or nullopt when it is not open.
    static std::optional<ObjectIdentity> identity(pid_t host_pid, int fd);
    // True for pipes, FIFOs and sockets.
    static bool is_stream(pid_t host_pid, int fd);
    // The object behind one of hermit's own descriptors (0, 1, 2).
    static std::optional<ObjectIdentity> own_identity(int fd);
    // Absolute path of the file behind a guest descriptor (readlink of /proc/<pid>/fd/<fd>).
    static std::optional<std::string> path(pid_t host_pid, int fd);
    // A guest path made absolute against the thread's cwd (dirfd AT_FDCWD) or directory descriptor (a
    // thread's own after unshare(CLONE_FS or CLONE_FILES)); empty when that directory cannot be resolved.
    static std::string absolute_path(tracer::Task& task, int dirfd, const std::string& path);
};

} // namespace hermit::replay
