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

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace hermit::tracer {
class Task;
}

namespace hermit::tracer::virt {

class GuestPathLookup {
public:
    // For its lifetime, this thread goes without hermit's capabilities that override file permissions or
    // ownership: the guest has the same uid and groups as hermit but maybe not its capabilities. Scopes
    // nest, and only the outermost changes the capabilities: a caller that makes several lookups and
    // changes for one guest syscall holds one scope around them and pays for one change and its undoing.
    class AsGuest {
    public:
        AsGuest();
        ~AsGuest();
        AsGuest(const AsGuest&) = delete;
        AsGuest& operator=(const AsGuest&) = delete;
        // The overrides are off (or hermit never had them).
        bool holds() const;

    private:
        bool changed_ = false;
    };

    struct Found {
        // An O_PATH descriptor of the file; invalid when not found here.
        UniqueFd file;
        // With no file: ENOENT or ENOTDIR when the path names nothing for the guest (a walk through real
        // directories, no symlink on the way, stops at a name that is missing or not a directory: a fact of
        // the file system that the guest's kernel sees the same way); 0 when that cannot be told here (a
        // symlink on the way, /proc, a directory hermit may not search without its capabilities).
        int missing = 0;
        // With a file: the f_type of its file system (statfs), which the lookup asked for anyway.
        long file_system = 0;
    };

    // The path argument at `address` in the guest's memory, as the kernel takes one: nullopt when it cannot
    // be read or is PATH_MAX bytes or longer (the kernel's ENAMETOOLONG, left to it).
    static std::optional<std::string> read_path(Task& task, uint64_t address);

    // What `path` (from `dirfd`, AT_FDCWD for the working directory) names for the guest, the final
    // symlink itself unless `follow`; an empty path names `dirfd`. No file when it cannot be found here as
    // the kernel would find it.
    static Found find(Task& task, int dirfd, const std::string& path, bool follow);

    // The directory that holds the last name of `path` (from `dirfd`), found as find() finds a file, and
    // that name: for a syscall that changes the name itself (unlink, mkdir, link) or creates it (open with
    // O_CREAT). No directory but `missing` (as Found::missing) when the directory names nothing for the
    // guest. None for a last name that is "." or "..", a path that ends in '/' (the kernel's own cases), or
    // a directory not found here.
    struct Parent {
        UniqueFd directory;
        std::string name;
        int missing = 0;
        long file_system = 0; // of the directory, as Found::file_system
    };
    static std::optional<Parent> parent_of(Task& task, int dirfd, const std::string& path);

    // Runs `change` (a syscall on a Parent's directory, 0 or -1 with errno) as the guest (AsGuest): the
    // guest, with hermit's credentials, gets the same answer, or a better one from its capabilities in its
    // user namespace, where hermit's is EACCES or EPERM. Returns 0 or -errno.
    static int change_as_guest(const std::function<int()>& change);
    // change_as_guest() of a syscall that creates a file or directory, under the guest's umask `mask`
    // instead of hermit's (a default ACL of the directory may override either).
    static int create_as_guest(mode_t mask, const std::function<int()>& create);

    // The guest thread's effective owner and group (those of /proc/<tid>) are hermit's.
    static bool shares_credentials(const Task& task);
};

} // namespace hermit::tracer::virt
