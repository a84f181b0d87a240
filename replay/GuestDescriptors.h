#pragma once
// GuestDescriptors: looks at a guest's file descriptors from the tracer, without running anything in the
// guest: whether a read or write on one would wait, and what kind of object it names. Duplicates of guest
// descriptors come from pidfd_getfd(2), so they share the guest's open file description (offset, flags,
// pipe buffer).

#include <sys/types.h>

#include <cstddef>
#include <map>
#include <optional>
#include <string>

namespace hermit::replay {

// The identity of an open object (device and inode, as fstat reports them).
struct ObjectIdentity {
    dev_t device = 0;
    ino_t inode = 0;
    bool operator==(const ObjectIdentity&) const = default;
};

class GuestDescriptors {
public:
    GuestDescriptors() = default;
    ~GuestDescriptors();
    GuestDescriptors(const GuestDescriptors&) = delete;
    GuestDescriptors& operator=(const GuestDescriptors&) = delete;

    // True when a blocking read on `fd` would wait now: the descriptor is in blocking mode and poll()
    // reports no input, no hang-up and no error. False when the fd is unknown (the syscall then fails).
    bool read_would_wait(pid_t host_pid, int fd);
    // True when a blocking write of `length` bytes to a pipe would wait for a reader now.
    bool write_would_wait(pid_t host_pid, int fd, size_t length);

    // The object behind a guest descriptor, or nullopt when it is not open.
    static std::optional<ObjectIdentity> identity(pid_t host_pid, int fd);
    // True for pipes, FIFOs and sockets.
    static bool is_stream(pid_t host_pid, int fd);
    // The object behind one of hermit's own descriptors (0, 1, 2).
    static std::optional<ObjectIdentity> own_identity(int fd);
    // Absolute path of the file behind a guest descriptor (readlink of /proc/<pid>/fd/<fd>).
    static std::optional<std::string> path(pid_t host_pid, int fd);

    // Forgets the pidfd of a process that exited or exec'd.
    void forget(pid_t host_pid);

private:
    // A duplicate of the guest's descriptor, closed by the caller; -1 on failure.
    int duplicate(pid_t host_pid, int fd);

    std::map<pid_t, int> pidfds_;
};

} // namespace hermit::replay
