#pragma once
// GuestFileIo: a guest's read, pread64, write, pwrite64 or lseek on a regular file, done by the tracer at
// the syscall's entry stop, through a duplicate of the guest's descriptor (pidfd_getfd: the same open file,
// so the same offset and flags) and the guest's memory; its readlink or readlinkat, with the link found
// as the guest's kernel would find it (tracer/virt/GuestPathLookup); its access, faccessat or faccessat2
// of a name found or missing there; its getxattr or lgetxattr of a file found there; its unlink,
// rmdir, mkdir, link, rename or symlink (name_changes()), done in the directories found that way, as the
// guest; its getcwd, from /proc; its ioctl TCGETS, TIOCGWINSZ or FIONREAD, on a duplicate of its
// descriptor; and its execve of a missing name (the failure only). The interceptor then emulates
// the syscall with the result, so a recorded or replayed file read or write, or a recorded readlink,
// access or name change, costs one ptrace stop (or one seccomp notification) instead of two stops (entry
// and exit). Anything else (other syscalls, pipes, sockets, devices, /proc files whose size reads as 0,
// O_DIRECT, very large transfers, readlink errors, an access check for a guest whose capabilities are not
// hermit's, a name change hermit is refused, and what GuestPathLookup cannot find) is declined and runs
// in the kernel as before.

#include "GuestDescriptors.h"
#include "formats/Event.h"
#include "tracer/SyscallInterceptor.h"
#include "tracer/Task.h"

#include <functional>
#include <optional>
#include <set>
#include <vector>

namespace hermit::replay {

class GuestFileIo {
public:
    struct Done {
        int64_t result = 0;               // what the guest sees: a byte count or a negative errno
        std::vector<MemoryWrite> outputs; // the bytes a read put into guest memory
    };

    // Performs the call when it is a read, write or lseek of a regular file that `accept` agrees to (it sees
    // the file's identity), a readlink, an access, a getxattr, a name change, a getcwd, a state-reading
    // ioctl or an execve of a missing name; nullopt leaves it to the kernel, with nothing done.
    static std::optional<Done> perform(tracer::Task& task, const tracer::SyscallStop& stop,
                                       const std::function<bool(const ObjectIdentity&)>& accept);

    // An ioctl request that only reports the state of a descriptor (terminal attributes, window size,
    // queued bytes, the terminal's foreground process group): a replay answers it from the log.
    static bool reports_state(uint64_t request);
    // An ioctl request that changes a terminal (its modes, window size, foreground group, queues): a replay
    // answers it from the log too and leaves the terminal it runs in alone. Every other request may change
    // the process (FIOCLEX, FIONBIO) and runs for real.
    static bool changes_terminal(uint64_t request);

    // unlink, rmdir, mkdir, link, rename and symlink, and their *at forms (renameat2 too).
    static const std::set<int>& name_changes();

    // lseek(fd, offset, whence) on the guest's descriptor `fd` when it is a regular file: a replay emulates
    // reads and lseek from the log, but the guest may write to the file next. False (nothing done) for
    // other descriptors.
    static bool move_offset(const tracer::Task& task, int fd, int64_t offset, int whence);

    // Larger transfers run in the kernel: the tracer would have to hold them in memory.
    static constexpr uint64_t kMaxTransferBytes = 16 << 20;
};

} // namespace hermit::replay
