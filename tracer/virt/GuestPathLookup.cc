#include "GuestPathLookup.h"

#include "tracer/Task.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <string_view>

namespace hermit::tracer::virt {
namespace {

// The capabilities that let hermit find files the guest may not (those that override file permissions) or
// change names the guest may not (a sticky directory, a protected hard link).
constexpr uint32_t kOverrides = (1U << CAP_DAC_OVERRIDE) | (1U << CAP_DAC_READ_SEARCH) | (1U << CAP_FOWNER);

struct Capabilities {
    bool known = false;
    __user_cap_data_struct data[2]{};
};

// Hermit's capabilities do not change while it runs, so they are read once.
const Capabilities& own_capabilities() {
    static const Capabilities own = [] {
        Capabilities read;
        __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
        read.known = syscall(SYS_capget, &header, read.data) == 0;
        return read;
    }();
    return own;
}

// The outermost AsGuest scope of this thread: how many are open, and whether the overrides are off.
thread_local int open_scopes = 0;
thread_local bool overrides_off = false;

} // namespace

GuestPathLookup::AsGuest::AsGuest() {
    if (open_scopes++ > 0) {
        return;
    }
    const Capabilities& own = own_capabilities();
    overrides_off = own.known && (own.data[0].effective & kOverrides) == 0;
    if (!own.known || overrides_off) {
        return;
    }
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct reduced[2] = {own.data[0], own.data[1]};
    reduced[0].effective &= ~kOverrides;
    changed_ = syscall(SYS_capset, &header, reduced) == 0;
    overrides_off = changed_;
}

GuestPathLookup::AsGuest::~AsGuest() {
    --open_scopes;
    if (changed_) {
        __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
        syscall(SYS_capset, &header, own_capabilities().data);
    }
}

bool GuestPathLookup::AsGuest::holds() const {
    return overrides_off;
}

namespace {

// Where the guest's kernel starts the lookup: its root for absolute paths, else its working directory or
// the dirfd (duplicated into `duplicate`).
const Task::Directory& lookup_start(Task& task, int dirfd, bool absolute, Task::Directory& duplicate) {
    if (absolute) {
        return task.root_directory();
    }
    if (dirfd == AT_FDCWD) {
        return task.working_directory();
    }
    duplicate.file = duplicate_guest_descriptor(task.host_pid(), dirfd);
    duplicate.file_system = file_system_of(duplicate.file);
    return duplicate;
}

// A file system hermit looks up names on: known, and not /proc.
bool searchable(long file_system) {
    return file_system != 0 && file_system != PROC_SUPER_MAGIC;
}

UniqueFd open_path(const UniqueFd& start, const std::string& path, uint64_t flags, uint64_t resolve,
                   bool absolute) {
    open_how how{};
    how.flags = O_PATH | O_CLOEXEC | flags;
    how.resolve = resolve | (absolute ? RESOLVE_IN_ROOT : RESOLVE_BENEATH);
    const GuestPathLookup::AsGuest guest_permissions;
    if (!guest_permissions.holds()) {
        errno = EPERM;
        return UniqueFd{};
    }
    return UniqueFd(static_cast<int>(syscall(SYS_openat2, start.get(), path.c_str(), &how, sizeof how)));
}

// Whether the first name of an absolute path is "proc" (a root's ".." is the root itself).
bool starts_in_proc(const std::string& path) {
    size_t start = 0;
    while (start < path.size()) {
        const size_t end = std::min(path.find('/', start), path.size());
        const std::string_view name(path.data() + start, end - start);
        if (!name.empty() && name != "." && name != "..") {
            return name == "proc";
        }
        start = end + 1;
    }
    return false;
}

} // namespace

std::optional<std::string> GuestPathLookup::read_path(Task& task, uint64_t address) {
    std::optional<std::string> path = task.read_string(address, PATH_MAX);
    return path && path->size() < PATH_MAX ? path : std::nullopt;
}

GuestPathLookup::Found GuestPathLookup::find(Task& task, int dirfd, const std::string& path, bool follow) {
    const AsGuest guest_permissions; // one capability change for all walks
    const bool absolute = path.starts_with('/');
    Task::Directory duplicate;
    const Task::Directory& start = lookup_start(task, dirfd, absolute, duplicate);
    if (!searchable(start.file_system)) {
        return {};
    }
    if (path.empty()) {
        // The start itself, which the Task may keep: the caller gets a descriptor of its own.
        return {UniqueFd(fcntl(start.file.get(), F_DUPFD_CLOEXEC, 0)), 0, start.file_system};
    }
    const uint64_t flags = follow ? 0 : O_NOFOLLOW;
    // A walk that crosses no mount point ends on the start's file system: no statfs of the target.
    UniqueFd target = open_path(start.file, path, flags, RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV, absolute);
    if (target.get() >= 0) {
        return {std::move(target), 0, start.file_system};
    }
    if (errno == EXDEV) { // a mount point on the way (or a path that leaves the start, EXDEV again)
        target = open_path(start.file, path, flags, RESOLVE_NO_MAGICLINKS, absolute);
        if (target.get() >= 0) {
            const long file_system = file_system_of(target);
            return searchable(file_system) ? Found{std::move(target), 0, file_system} : Found{};
        }
    }
    // Not found: a missing name the second walk can vouch for, or nothing to say.
    if ((absolute && starts_in_proc(path)) ||
        open_path(start.file, path, O_NOFOLLOW, RESOLVE_NO_SYMLINKS, absolute).get() >= 0) {
        return {};
    }
    return {UniqueFd{}, errno == ENOENT || errno == ENOTDIR ? errno : 0};
}

std::optional<GuestPathLookup::Parent> GuestPathLookup::parent_of(Task& task, int dirfd,
                                                                  const std::string& path) {
    const size_t slash = path.rfind('/');
    const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    if (name.empty() || name == "." || name == "..") {
        return std::nullopt; // the kernel's own cases: a trailing slash, the directory itself or its parent
    }
    const std::string directory = slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
    Found found = find(task, dirfd, directory, true);
    if (found.file.get() < 0 && found.missing == 0) {
        return std::nullopt;
    }
    return Parent{std::move(found.file), name, found.missing, found.file_system};
}

int GuestPathLookup::change_as_guest(const std::function<int()>& change) {
    const AsGuest guest_permissions;
    if (!guest_permissions.holds()) {
        return -EPERM;
    }
    return change() == 0 ? 0 : -errno;
}

int GuestPathLookup::create_as_guest(mode_t mask, const std::function<int()>& create) {
    // hermit's umask changes only here, and back at once: it is read once (umask(2) cannot only read).
    static const mode_t own_mask = [] {
        const mode_t read = umask(0);
        umask(read);
        return read;
    }();
    if (mask == own_mask) {
        return change_as_guest(create);
    }
    umask(mask);
    const int result = change_as_guest(create);
    umask(own_mask);
    return result;
}

bool GuestPathLookup::shares_credentials(const Task& task) {
    if (task.has_hermit_credentials()) {
        return true;
    }
    static const uid_t own_uid = geteuid();
    static const gid_t own_gid = getegid();
    struct stat process {};
    return stat(("/proc/" + std::to_string(task.host_tid())).c_str(), &process) == 0 &&
           process.st_uid == own_uid && process.st_gid == own_gid;
}

} // namespace hermit::tracer::virt
