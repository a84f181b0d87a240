#include "GuestOpen.h"

#include "GuestPathLookup.h"
#include "tracer/SyscallTable.h"
#include "tracer/Task.h"
#include "tracer/preload/syscall_buffer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <algorithm>
#include <array>

namespace hermit::tracer::virt {

namespace {

// Flags whose open hermit's reopen of the found file performs as the guest's would.
constexpr uint32_t kOpenableFlags = O_ACCMODE | O_CREAT | O_APPEND | O_NONBLOCK | O_SYNC | O_DIRECT |
                                    O_LARGEFILE | O_DIRECTORY | O_NOFOLLOW | O_NOATIME | O_CLOEXEC |
                                    O_NOCTTY | O_EXCL | O_TRUNC;

// The kernel takes the flags as an int.
uint32_t flags_of(const SyscallStop& stop) {
    return static_cast<uint32_t>(stop.args[open_flags_argument(stop.number)]);
}

mode_t mode_of(const SyscallStop& stop) {
    return static_cast<mode_t>(stop.args[open_flags_argument(stop.number) + 1] & 07777);
}

bool openable(uint32_t flags) {
    return (flags & ~kOpenableFlags) == 0 && (flags & O_ACCMODE) != O_ACCMODE;
}

// What the guest gets from hermit's open (`result` 0 or -errno): a refusal (EACCES, EPERM) that the guest's
// own capabilities might overcome is left to the kernel.
std::optional<GuestOpen::Opened> opened_as_guest(UniqueFd opened, int result, uint32_t flags,
                                                 const OpenedFileInfo& info) {
    if (result == -EACCES || result == -EPERM) {
        return std::nullopt;
    }
    return GuestOpen::Opened{std::move(opened), -result, (flags & O_CLOEXEC) != 0, info};
}

// Opens `found` (an O_PATH descriptor of what the path names, on the file system of type `file_system`)
// with the guest's `flags`, through its /proc/self/fd link: the kernel checks permissions and flags against
// the file as an open of its path would.
std::optional<GuestOpen::Opened> reopen(const UniqueFd& found, long file_system, uint32_t flags) {
    struct stat info {};
    if (file_system == 0 || fstat(found.get(), &info) != 0) {
        return std::nullopt;
    }
    if (S_ISLNK(info.st_mode)) {
        return GuestOpen::Opened::failed(ELOOP); // O_NOFOLLOW named a symlink
    }
    if ((!S_ISREG(info.st_mode) && !S_ISDIR(info.st_mode)) || GuestOpen::is_pseudo_file_system(file_system)) {
        return std::nullopt;
    }
    const std::string link = "/proc/self/fd/" + std::to_string(found.get());
    UniqueFd opened;
    const int result = GuestPathLookup::change_as_guest([&] {
        opened =
            UniqueFd(::open(link.c_str(), static_cast<int>((flags & ~uint32_t{O_NOFOLLOW}) | O_CLOEXEC)));
        return opened.get() >= 0 ? 0 : -1;
    });
    return opened_as_guest(std::move(opened), result, flags, OpenedFileInfo::of(info));
}

// An open with O_CREAT of `name` in `directory` (on a file system of type `file_system`), under the
// guest's umask `mask`. A name that exists as a symlink (without O_EXCL the kernel would follow it, maybe
// out of the guest's root), a FIFO, a device or a socket, or that lies on a pseudo file system, is left to
// the kernel.
std::optional<GuestOpen::Opened> create(const UniqueFd& directory, long file_system, const std::string& name,
                                        uint32_t flags, mode_t mode, mode_t mask) {
    struct stat existing {};
    if (file_system == 0 || GuestOpen::is_pseudo_file_system(file_system)) {
        return std::nullopt;
    }
    if (fstatat(directory.get(), name.c_str(), &existing, AT_SYMLINK_NOFOLLOW) == 0) {
        if ((flags & O_EXCL) != 0) {
            return GuestOpen::Opened::failed(EEXIST);
        }
        if (!S_ISREG(existing.st_mode) && !S_ISDIR(existing.st_mode)) {
            return std::nullopt;
        }
    } else if (errno != ENOENT) {
        return std::nullopt;
    }
    UniqueFd opened;
    const int result = GuestPathLookup::create_as_guest(mask, [&] {
        opened = UniqueFd(
            ::openat(directory.get(), name.c_str(), static_cast<int>(flags | O_NOFOLLOW | O_CLOEXEC), mode));
        return opened.get() >= 0 ? 0 : -1;
    });
    OpenedFileInfo info{S_IFREG}; // what O_EXCL makes
    if (opened.get() >= 0 && (flags & O_EXCL) == 0) {
        // The name may have changed since fstatat: a FIFO or a device made meanwhile is left to the kernel.
        struct stat made {};
        if (fstat(opened.get(), &made) != 0 || (!S_ISREG(made.st_mode) && !S_ISDIR(made.st_mode))) {
            return std::nullopt;
        }
        info = OpenedFileInfo::of(made);
    }
    return opened_as_guest(std::move(opened), result, flags, info);
}

} // namespace

std::optional<GuestOpen::Opened> GuestOpen::open(Task& task, const SyscallStop& stop) {
    if (!opens(stop.number) || !openable(flags_of(stop))) {
        return std::nullopt;
    }
    const bool at_directory = stop.number == SYS_openat;
    const auto path = GuestPathLookup::read_path(task, stop.args[at_directory ? 1 : 0]);
    if (!path || path->empty() || !GuestPathLookup::shares_credentials(task)) {
        return std::nullopt;
    }
    const int dirfd = at_directory ? static_cast<int>(stop.args[0]) : AT_FDCWD;
    const GuestPathLookup::AsGuest guest_permissions; // for the lookup and the open
    if ((flags_of(stop) & O_CREAT) != 0) {
        const std::optional<GuestPathLookup::Parent> parent = GuestPathLookup::parent_of(task, dirfd, *path);
        const std::optional<mode_t> mask = task.file_creation_mask();
        if (!parent || !mask) {
            return std::nullopt;
        }
        if (parent->directory.get() < 0) {
            return Opened::failed(parent->missing);
        }
        return create(parent->directory, parent->file_system, parent->name, flags_of(stop), mode_of(stop),
                      *mask);
    }
    const GuestPathLookup::Found found =
        GuestPathLookup::find(task, dirfd, *path, (flags_of(stop) & O_NOFOLLOW) == 0);
    if (found.file.get() < 0) {
        return found.missing != 0 ? std::optional(Opened::failed(found.missing)) : std::nullopt;
    }
    return reopen(found.file, found.file_system, flags_of(stop));
}

std::optional<GuestOpen::Opened> GuestOpen::open_instead(Task& task, const std::string& path,
                                                         const SyscallStop& stop) {
    if (!opens(stop.number) || !openable(flags_of(stop))) {
        return std::nullopt;
    }
    if ((flags_of(stop) & O_CREAT) != 0) {
        const size_t slash = path.rfind('/');
        const UniqueFd directory(
            ::open(slash == 0 ? "/" : path.substr(0, slash).c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
        const std::optional<mode_t> mask = task.file_creation_mask();
        if (slash == std::string::npos || directory.get() < 0 || !mask) {
            return std::nullopt;
        }
        return create(directory, file_system_of(directory), path.substr(slash + 1), flags_of(stop),
                      mode_of(stop), *mask);
    }
    const UniqueFd found(::open(path.c_str(), O_PATH | O_CLOEXEC | (flags_of(stop) & O_NOFOLLOW)));
    if (found.get() < 0) {
        return Opened::failed(errno);
    }
    return reopen(found, file_system_of(found), flags_of(stop));
}

bool GuestOpen::opens(int number) {
    return number == SYS_open || number == SYS_openat;
}

ConditionalTrap GuestOpen::notify_condition(int number) {
    constexpr uint32_t kUnnamedFile = O_TMPFILE & ~O_DIRECTORY;
    return {number, static_cast<unsigned>(open_flags_argument(number)), kUnnamedFile, 0};
}

bool GuestOpen::is_pseudo_file_system(long type) {
    constexpr std::array<long, 9> kPseudoFileSystems = HERMIT_PSEUDO_FILE_SYSTEMS;
    return std::find(kPseudoFileSystems.begin(), kPseudoFileSystems.end(), type) != kPseudoFileSystems.end();
}

} // namespace hermit::tracer::virt
