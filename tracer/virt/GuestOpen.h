#pragma once
// GuestOpen: the open or openat of a regular file or directory, done by the tracer the way the guest's
// kernel would do it. GuestPathLookup finds the file (or, with O_CREAT, its directory) from the guest's
// root, working directory or dirfd; hermit opens it without its capabilities that override permissions,
// and creates it under the guest's umask. The Session then answers a
// notified open by installing the descriptor in the guest (SyscallNotifications::install): one round trip
// where the kernel's own open, whose exit a recording or a replay needs, costs an entry and an exit stop.
//
// Only what hermit can open exactly as the guest would is opened here: no O_TMPFILE (notify_condition()
// keeps it from being notified at all), no O_PATH or O_ASYNC, no O_CREAT of a name that is a symlink
// (its target would resolve in hermit's root), nothing on a pseudo file system (what /proc shows depends on
// who opens it, and a recording traps the reads of such files: tracer/DescriptorTraps.h), no FIFO, device or
// socket (their opens may wait or act). The rest, and a refusal (EACCES, EPERM) that the guest's own
// capabilities might overcome, is left to the kernel.

#include "formats/FileIo.h"
#include "tracer/SyscallInterceptor.h"
#include "tracer/Task.h"

#include <optional>
#include <string>

namespace hermit::tracer::virt {

class GuestOpen {
public:
    struct Opened {
        UniqueFd file; // hermit's descriptor of what the guest opened; none when the open fails
        int error = 0; // then the guest's errno (ENOENT, ENOTDIR, ELOOP, EISDIR, ...)
        bool close_on_exec = false;
        OpenedFileInfo info; // with a file

        static Opened failed(int error) { return Opened{UniqueFd{}, error, false, {}}; }
    };

    // open(path, flags) or openat(dirfd, path, flags) as the guest; nullopt leaves it to the kernel.
    static std::optional<Opened> open(Task& task, const SyscallStop& stop);
    // The same open of `path`, hermit's own file (a replay's copy), in place of the guest's path argument.
    static std::optional<Opened> open_instead(Task& task, const std::string& path, const SyscallStop& stop);

    // SYS_open and SYS_openat, the calls open() takes.
    static bool opens(int number);
    // Of those, the ones open() may take, as a seccomp condition: without O_TMPFILE.
    static ConditionalTrap notify_condition(int number);

    // A file system whose files the kernel makes as they are read (proc, sysfs, cgroup, FUSE, ...), by its
    // statfs f_type.
    static bool is_pseudo_file_system(long type);
};

} // namespace hermit::tracer::virt
