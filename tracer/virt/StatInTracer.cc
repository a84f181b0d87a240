#include "StatInTracer.h"

#include "GuestPathLookup.h"
#include "tracer/Task.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <string>

namespace hermit::tracer::virt {
namespace {

// A stat-family call in one shape: fstat(fd) is fstatat(fd, "", AT_EMPTY_PATH), stat and lstat are
// fstatat(AT_FDCWD, path, 0 or AT_SYMLINK_NOFOLLOW).
struct StatCall {
    int dirfd = AT_FDCWD;
    std::optional<uint64_t> path; // the guest's address of the path; none for fstat
    uint64_t flags = 0;
    uint64_t mask = 0; // statx only
    uint64_t buffer = 0;
};

StatCall call_of(const SyscallStop& stop) {
    switch (stop.number) {
    case SYS_stat:
        return {AT_FDCWD, stop.args[0], 0, 0, stop.args[1]};
    case SYS_lstat:
        return {AT_FDCWD, stop.args[0], AT_SYMLINK_NOFOLLOW, 0, stop.args[1]};
    case SYS_fstat:
        return {static_cast<int>(stop.args[0]), std::nullopt, AT_EMPTY_PATH, 0, stop.args[1]};
    case SYS_newfstatat:
        return {static_cast<int>(stop.args[0]), stop.args[1], stop.args[3], 0, stop.args[2]};
    default: // statx
        return {static_cast<int>(stop.args[0]), stop.args[1], stop.args[2], stop.args[3], stop.args[4]};
    }
}

// The owner fields of either answer.
uint32_t& owner_uid(struct stat& status) {
    return status.st_uid;
}
uint32_t& owner_uid(struct statx& status) {
    return status.stx_uid;
}
uint32_t& owner_gid(struct stat& status) {
    return status.st_gid;
}
uint32_t& owner_gid(struct statx& status) {
    return status.stx_gid;
}

} // namespace

const std::set<int>& StatInTracer::stat_syscalls() {
    static const std::set<int> numbers = {SYS_stat, SYS_fstat, SYS_lstat, SYS_newfstatat, SYS_statx};
    return numbers;
}

std::optional<StatInTracer::Answer> StatInTracer::answer(Task& task, const SyscallStop& stop) {
    const StatCall call = call_of(stop);
    const bool extended = stop.number == SYS_statx;
    // The lookup (an O_PATH open) never mounts an automount point at the last name, which is what
    // AT_NO_AUTOMOUNT asks for (`ls -l` passes it to every statx).
    const uint64_t known_flags =
        AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | AT_NO_AUTOMOUNT | (extended ? AT_STATX_SYNC_TYPE : 0);
    if ((call.flags & ~known_flags) != 0 || (stop.number == SYS_fstat && call.dirfd < 0) ||
        !GuestPathLookup::shares_credentials(task)) {
        return std::nullopt;
    }
    std::string path;
    if (call.path) {
        const auto text = GuestPathLookup::read_path(task, *call.path);
        if (!text) {
            return std::nullopt;
        }
        path = *text;
    }
    if (path.empty() && (call.flags & AT_EMPTY_PATH) == 0) {
        return std::nullopt; // ENOENT, from the kernel
    }
    const GuestPathLookup::Found found =
        GuestPathLookup::find(task, call.dirfd, path, (call.flags & AT_SYMLINK_NOFOLLOW) == 0);
    const UniqueFd& target = found.file;
    if (target.get() < 0) {
        return found.missing != 0 ? std::optional(Answer{call.buffer, {}, found.missing}) : std::nullopt;
    }
    Answer answer{call.buffer, {}};
    if (extended) {
        struct statx status {};
        if (statx(target.get(), "", AT_EMPTY_PATH | static_cast<int>(call.flags & AT_STATX_SYNC_TYPE),
                  static_cast<unsigned>(call.mask), &status) != 0) {
            return std::nullopt;
        }
        answer.status = status;
    } else {
        struct stat status {};
        if (fstat(target.get(), &status) != 0) {
            return std::nullopt;
        }
        answer.status = status;
    }
    const bool shown_to_guest = std::visit(
        [&](auto& status) {
            const auto ids = ids_.guest_view(task, {owner_uid(status), owner_gid(status)});
            if (ids) {
                owner_uid(status) = ids->uid;
                owner_gid(status) = ids->gid;
            }
            return ids.has_value();
        },
        answer.status);
    return shown_to_guest ? std::optional(answer) : std::nullopt;
}

} // namespace hermit::tracer::virt
