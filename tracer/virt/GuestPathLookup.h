#pragma once
// GuestPathLookup: finds, from the tracer, the file a guest's (dirfd, path) names, the way the guest's
// kernel would: absolute paths from the guest's root (/proc/<tid>/root, so in the guest's mount
// namespace), relative ones from its working directory or dirfd (a duplicate of the guest's descriptor).
// Used to answer syscalls at their entry stop (one ptrace stop instead of two).
//
// It finds only what it can find exactly like the kernel; otherwise the answer is "not found here" and the
// caller leaves the syscall to the kernel: relative paths that leave their directory (".." or absolute
// symlinks, which would resolve in hermit's mount namespace), magic links, files on /proc (whose answers
// depend on who asks, and /proc/self is hermit there), and guests whose credentials differ from hermit's.
// Paths are resolved without hermit's capabilities to override file permissions, so a directory the guest
// cannot search is not searched for it either.

#include "formats/FileIo.h"

#include <sys/types.h>

#include <string>

namespace hermit::tracer {
class Task;
}

namespace hermit::tracer::virt {

class GuestPathLookup {
public:
    struct Found {
        // An O_PATH descriptor of the file; invalid when not found here.
        UniqueFd file;
        // With no file: ENOENT or ENOTDIR when the path names nothing for the guest (a walk through real
        // directories, no symlink on the way, stops at a name that is missing or not a directory: a fact of
        // the file system that the guest's kernel sees the same way); 0 when that cannot be told here (a
        // symlink on the way, /proc, a directory hermit may not search without its capabilities).
        int missing = 0;
    };

    // What `path` (from `dirfd`, AT_FDCWD for the working directory) names for the guest, the final
    // symlink itself unless `follow`; an empty path names `dirfd`. No file when it cannot be found here as
    // the kernel would find it.
    static Found find(const Task& task, int dirfd, const std::string& path, bool follow);

    // The guest thread's effective owner and group (those of /proc/<tid>) are hermit's.
    static bool shares_credentials(pid_t host_tid);
};

} // namespace hermit::tracer::virt
