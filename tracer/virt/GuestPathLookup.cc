#include "GuestPathLookup.h"

#include "tracer/Task.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace hermit::tracer::virt {
namespace {

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

} // namespace

UniqueFd GuestPathLookup::find(const Task& task, int dirfd, const std::string& path, bool follow) {
    const bool absolute = path.starts_with('/');
    UniqueFd target = lookup_start(task, dirfd, absolute);
    if (!path.empty()) {
        target = open_path(target, path, follow, absolute);
    }
    struct statfs filesystem {};
    if (target.get() < 0 || fstatfs(target.get(), &filesystem) != 0 ||
        filesystem.f_type == PROC_SUPER_MAGIC) {
        return UniqueFd{};
    }
    return target;
}

bool GuestPathLookup::shares_credentials(pid_t host_tid) {
    struct stat process {};
    return stat(("/proc/" + std::to_string(host_tid)).c_str(), &process) == 0 &&
           process.st_uid == geteuid() && process.st_gid == getegid();
}

} // namespace hermit::tracer::virt
