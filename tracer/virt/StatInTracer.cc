#include "StatInTracer.h"

#include "tracer/Task.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
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

// For its lifetime, this thread cannot override file permissions (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
// the guest has the same uid and groups as hermit but maybe not its capabilities.
class WithoutPermissionOverride {
public:
    WithoutPermissionOverride() {
        if (syscall(SYS_capget, &header_, saved_) != 0) {
            return;
        }
        constexpr uint32_t kOverrides = (1U << CAP_DAC_OVERRIDE) | (1U << CAP_DAC_READ_SEARCH);
        if ((saved_[0].effective & kOverrides) == 0) {
            dropped_or_absent_ = true;
            return;
        }
        __user_cap_data_struct reduced[2] = {saved_[0], saved_[1]};
        reduced[0].effective &= ~kOverrides;
        changed_ = syscall(SYS_capset, &header_, reduced) == 0;
        dropped_or_absent_ = changed_;
    }
    ~WithoutPermissionOverride() {
        if (changed_) {
            syscall(SYS_capset, &header_, saved_);
        }
    }
    WithoutPermissionOverride(const WithoutPermissionOverride&) = delete;
    WithoutPermissionOverride& operator=(const WithoutPermissionOverride&) = delete;

    bool holds() const { return dropped_or_absent_; }

private:
    __user_cap_header_struct header_{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct saved_[2]{};
    bool changed_ = false;
    bool dropped_or_absent_ = false;
};

// The thread's effective owner and group (those of /proc/<tid>) are hermit's.
bool has_own_credentials(pid_t host_tid) {
    struct stat process {};
    return stat(("/proc/" + std::to_string(host_tid)).c_str(), &process) == 0 &&
           process.st_uid == geteuid() && process.st_gid == getegid();
}

// Where the guest's kernel starts the lookup: its root for absolute paths, else its working directory or
// the dirfd.
UniqueFd lookup_start(const Task& task, int dirfd, bool absolute) {
    if (absolute || dirfd == AT_FDCWD) {
        const std::string link = "/proc/" + std::to_string(task.host_tid()) + (absolute ? "/root" : "/cwd");
        return UniqueFd(open(link.c_str(), O_PATH | O_CLOEXEC));
    }
    return duplicate_guest_descriptor(task.host_pid(), dirfd);
}

UniqueFd open_path(const UniqueFd& start, const std::string& path, bool follow, bool absolute) {
    open_how how{};
    how.flags = O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW);
    how.resolve = RESOLVE_NO_MAGICLINKS | (absolute ? RESOLVE_IN_ROOT : RESOLVE_BENEATH);
    const WithoutPermissionOverride guest_permissions;
    if (!guest_permissions.holds()) {
        return UniqueFd{};
    }
    return UniqueFd(static_cast<int>(syscall(SYS_openat2, start.get(), path.c_str(), &how, sizeof how)));
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

bool StatInTracer::is_stat_syscall(int number) {
    return number == SYS_stat || number == SYS_fstat || number == SYS_lstat || number == SYS_newfstatat ||
           number == SYS_statx;
}

std::optional<StatInTracer::Answer> StatInTracer::answer(Task& task, const SyscallStop& stop) {
    const StatCall call = call_of(stop);
    const bool extended = stop.number == SYS_statx;
    const uint64_t known_flags = AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | (extended ? AT_STATX_SYNC_TYPE : 0);
    if ((call.flags & ~known_flags) != 0 || (stop.number == SYS_fstat && call.dirfd < 0) ||
        !has_own_credentials(task.host_tid())) {
        return std::nullopt;
    }
    std::string path;
    if (call.path) {
        const auto text = task.read_string(*call.path, PATH_MAX);
        if (!text || text->size() >= PATH_MAX) {
            return std::nullopt;
        }
        path = *text;
    }
    const bool absolute = path.starts_with('/');
    UniqueFd target = lookup_start(task, call.dirfd, absolute);
    if (!path.empty()) {
        target = open_path(target, path, (call.flags & AT_SYMLINK_NOFOLLOW) == 0, absolute);
    } else if ((call.flags & AT_EMPTY_PATH) == 0) {
        return std::nullopt; // ENOENT, from the kernel
    }
    struct statfs filesystem {};
    if (target.get() < 0 || fstatfs(target.get(), &filesystem) != 0 ||
        filesystem.f_type == PROC_SUPER_MAGIC) {
        return std::nullopt;
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
            const auto ids = ids_.guest_view(task.host_tid(), {owner_uid(status), owner_gid(status)});
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
