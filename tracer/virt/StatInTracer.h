#pragma once
// StatInTracer: runs a guest's stat, lstat, fstat, newfstatat or statx in the tracer at the syscall's entry
// (its notification or its entry stop), so that the Virtualizer can emulate it without a stop instead of
// rewriting the kernel's answer at an exit stop. The file is found as the guest's kernel would find it
// (GuestPathLookup); owners are shown through the guest's user namespace (GuestIdMap).
//
// It answers only what it can answer exactly like the kernel. Everything else is left to the kernel (the
// caller falls back to the exit-stop rewrite): failures other than a missing name (ENOENT, ENOTDIR on a
// walk without symlinks, GuestPathLookup::Found::missing), so EACCES, EFAULT, EBADF... are the kernel's;
// flags other than AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH and the statx sync flags; whatever GuestPathLookup
// cannot find.

#include "GuestIdMap.h"

#include "tracer/SyscallInterceptor.h"

#include <sys/stat.h>

#include <optional>
#include <set>
#include <variant>

namespace hermit::tracer {
class Task;
}

namespace hermit::tracer::virt {

class StatInTracer {
public:
    // What the kernel would have written for the guest, and where.
    struct Answer {
        uint64_t address;
        std::variant<struct stat, struct statx> status;
        // ENOENT or ENOTDIR (GuestPathLookup::Found::missing): the guest sees this failure, status unused.
        int error = 0;
    };

    // stat, fstat, lstat, newfstatat and statx.
    static const std::set<int>& stat_syscalls();
    static bool is_stat_syscall(int number) { return stat_syscalls().contains(number); }

    // The answer to `stop` (a stat-family syscall), or nullopt when the kernel must run it.
    std::optional<Answer> answer(Task& task, const SyscallStop& stop);

private:
    GuestIdMap ids_;
};

} // namespace hermit::tracer::virt
