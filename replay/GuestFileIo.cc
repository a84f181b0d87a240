#include "GuestFileIo.h"

#include "formats/FileIo.h"
#include "tracer/ProcFs.h"
#include "tracer/SyscallTable.h"
#include "tracer/virt/GuestPathLookup.h"

#include <fcntl.h>
#include <linux/limits.h>
#include <stdio.h> // renameat2
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <string>
#include <string_view>

namespace hermit::replay {

namespace {

bool is_file_io(int number) {
    return number == SYS_read || number == SYS_pread64 || number == SYS_write || number == SYS_pwrite64 ||
           number == SYS_lseek;
}

// A name found to be missing (GuestPathLookup::Found::missing): the kernel's ENOENT or ENOTDIR; nullopt
// when that cannot be told here.
std::optional<GuestFileIo::Done> missing_answer(const tracer::virt::GuestPathLookup::Found& found) {
    return found.missing != 0 ? std::optional(GuestFileIo::Done{-found.missing, {}}) : std::nullopt;
}

// What the path at `path_address` (from `dirfd`) names for a guest thread with hermit's credentials;
// nullopt for an empty or unreadable path or another guest, left to the kernel.
std::optional<tracer::virt::GuestPathLookup::Found> find_named(tracer::Task& task, int dirfd,
                                                               uint64_t path_address, bool follow) {
    using tracer::virt::GuestPathLookup;
    const auto path = GuestPathLookup::read_path(task, path_address);
    if (!path || path->empty() || !GuestPathLookup::shares_credentials(task)) {
        return std::nullopt;
    }
    return GuestPathLookup::find(task, dirfd, *path, follow);
}

GuestFileIo::Done read_into_guest(tracer::Task& task, const tracer::SyscallStop& stop, int file,
                                  const struct stat& info) {
    const bool at_offset = stop.number == SYS_pread64;
    const off_t offset = at_offset ? static_cast<off_t>(stop.args[3]) : lseek(file, 0, SEEK_CUR);
    if (offset < 0) {
        return {at_offset ? -EINVAL : -errno, {}};
    }
    // A read returns at most what is left of the file; a file that grows meanwhile gives a short read,
    // as it may natively.
    const uint64_t left = info.st_size > offset ? static_cast<uint64_t>(info.st_size - offset) : 0;
    std::vector<uint8_t> bytes(std::min<uint64_t>(stop.args[2], left));
    const ssize_t count = pread(file, bytes.data(), bytes.size(), offset);
    if (count < 0) {
        return {-errno, {}};
    }
    bytes.resize(static_cast<size_t>(count));
    if (count > 0 && !task.write(stop.args[1], bytes.data(), bytes.size())) {
        return {-EFAULT, {}};
    }
    if (!at_offset) {
        lseek(file, offset + count, SEEK_SET);
    }
    GuestFileIo::Done done{count, {}};
    if (count > 0) {
        done.outputs.push_back(MemoryWrite{stop.args[1], std::move(bytes)});
    }
    return done;
}

GuestFileIo::Done write_from_guest(tracer::Task& task, const tracer::SyscallStop& stop, int file) {
    auto bytes = task.read_bytes(stop.args[1], stop.args[2]);
    if (!bytes) {
        return {-EFAULT, {}};
    }
    const ssize_t count = stop.number == SYS_pwrite64
                              ? pwrite(file, bytes->data(), bytes->size(), static_cast<off_t>(stop.args[3]))
                              : write(file, bytes->data(), bytes->size());
    return {count < 0 ? -errno : count, {}};
}

// readlink(path, buffer, size) or readlinkat(dirfd, path, buffer, size): the link found as the guest's
// kernel would find it, EINVAL for something found that is not a link (realpath asks about every
// component), ENOENT or ENOTDIR for a name that is not there (GuestPathLookup::Found::missing); nullopt for
// anything else, other errors included.
std::optional<GuestFileIo::Done> read_link(tracer::Task& task, const tracer::SyscallStop& stop) {
    const bool at_directory = stop.number == SYS_readlinkat;
    const int dirfd = at_directory ? static_cast<int>(stop.args[0]) : AT_FDCWD;
    const uint64_t path_address = stop.args[at_directory ? 1 : 0];
    const uint64_t buffer = stop.args[at_directory ? 2 : 1];
    const auto size = static_cast<int64_t>(stop.args[at_directory ? 3 : 2]);
    const auto path = tracer::virt::GuestPathLookup::read_path(task, path_address);
    // A trailing slash makes the kernel follow the link: left to it.
    if (size <= 0 || !path || path->empty() || path->ends_with('/') ||
        !tracer::virt::GuestPathLookup::shares_credentials(task)) {
        return std::nullopt;
    }
    const tracer::virt::GuestPathLookup::Found found =
        tracer::virt::GuestPathLookup::find(task, dirfd, *path, false);
    const UniqueFd& link = found.file;
    if (link.get() < 0) {
        return missing_answer(found);
    }
    struct stat info {};
    if (fstat(link.get(), &info) != 0) {
        return std::nullopt;
    }
    if (!S_ISLNK(info.st_mode)) {
        return GuestFileIo::Done{-EINVAL, {}};
    }
    std::vector<uint8_t> target(PATH_MAX);
    const ssize_t length = readlinkat(link.get(), "", reinterpret_cast<char*>(target.data()), target.size());
    if (length < 0) {
        return std::nullopt;
    }
    // Truncated to the buffer, without a terminating NUL, as the kernel does.
    target.resize(static_cast<size_t>(std::min<int64_t>(length, size)));
    if (!task.write(buffer, target.data(), target.size())) {
        return std::nullopt;
    }
    GuestFileIo::Done done{static_cast<int64_t>(target.size()), {}};
    done.outputs.push_back(MemoryWrite{buffer, std::move(target)});
    return done;
}

// getxattr(path, name, value, size) or lgetxattr of a file found as the guest's kernel would find it, read
// without hermit's capabilities that override permissions (user.* names need read permission): `ls -l`
// asks two of them about every name. Names only CAP_SYS_ADMIN may read (trusted.*), a symlink itself,
// and what cannot be found here are left to the kernel.
std::optional<GuestFileIo::Done> get_attribute(tracer::Task& task, const tracer::SyscallStop& stop) {
    using tracer::virt::GuestPathLookup;
    const auto path = GuestPathLookup::read_path(task, stop.args[0]);
    const auto name = task.read_string(stop.args[1], XATTR_NAME_MAX + 1);
    const uint64_t size = stop.args[3];
    if (!path || path->empty() || !name || name->size() > XATTR_NAME_MAX || name->starts_with("trusted.") ||
        size > XATTR_SIZE_MAX || !GuestPathLookup::shares_credentials(task)) {
        return std::nullopt;
    }
    const GuestPathLookup::AsGuest guest_permissions; // for the lookup and the read
    const GuestPathLookup::Found found =
        GuestPathLookup::find(task, AT_FDCWD, *path, stop.number == SYS_getxattr);
    struct stat info {};
    if (found.file.get() < 0) {
        return missing_answer(found);
    }
    if (fstat(found.file.get(), &info) != 0 || S_ISLNK(info.st_mode)) {
        return std::nullopt;
    }
    const std::string file = "/proc/self/fd/" + std::to_string(found.file.get());
    std::vector<uint8_t> value(size);
    ssize_t length = 0;
    const int result = GuestPathLookup::change_as_guest([&] {
        length = getxattr(file.c_str(), name->c_str(), size > 0 ? value.data() : nullptr, size);
        return length < 0 ? -1 : 0;
    });
    if (result == -EACCES || result == -EPERM) {
        return std::nullopt;
    }
    if (result < 0) {
        return GuestFileIo::Done{result, {}};
    }
    value.resize(size > 0 ? static_cast<size_t>(length) : 0);
    if (!value.empty() && !task.write(stop.args[2], value.data(), value.size())) {
        return GuestFileIo::Done{-EFAULT, {}};
    }
    GuestFileIo::Done done{length, {}};
    if (!value.empty()) {
        done.outputs.push_back(MemoryWrite{stop.args[2], std::move(value)});
    }
    return done;
}

bool is_access(int number) {
    return number == SYS_access || number == SYS_faccessat || number == SYS_faccessat2;
}

// access(path, mode), faccessat(dirfd, path, mode) or faccessat2(dirfd, path, mode, flags): ENOENT or
// ENOTDIR for a path that names nothing for the guest (GuestPathLookup::Found::missing; the dynamic loader
// asks about the usually missing /etc/ld.so.preload at every program start, a compiler driver about its
// programs in every directory it knows); for a file found, 0 when only its existence is asked (F_OK). Other
// modes of a file found are left to the kernel: the guest is root in its own user namespace, where only
// root is mapped, so its capabilities cover fewer files than hermit's. Arguments the kernel refuses before
// the lookup and what cannot be told here are left to the kernel too.
std::optional<GuestFileIo::Done> check_access(tracer::Task& task, const tracer::SyscallStop& stop) {
    const bool at_directory = stop.number != SYS_access;
    const int dirfd = at_directory ? static_cast<int>(stop.args[0]) : AT_FDCWD;
    const uint64_t path_address = stop.args[at_directory ? 1 : 0];
    const uint64_t mode = stop.args[at_directory ? 2 : 1];
    const uint64_t flags = stop.number == SYS_faccessat2 ? stop.args[3] : 0;
    constexpr uint64_t kKnownFlags = AT_EACCESS | AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH;
    if ((mode & ~uint64_t{S_IRWXO}) != 0 || (flags & ~kKnownFlags) != 0) {
        return std::nullopt;
    }
    if ((flags & AT_EACCESS) == 0 && !task.has_hermit_credentials() &&
        !tracer::procfs::real_ids_are_effective(task.host_tid())) {
        return std::nullopt;
    }
    const auto found = find_named(task, dirfd, path_address, (flags & AT_SYMLINK_NOFOLLOW) == 0);
    if (!found || found->file.get() < 0) {
        return found ? missing_answer(*found) : std::nullopt;
    }
    return mode == F_OK ? std::optional(GuestFileIo::Done{0, {}}) : std::nullopt;
}

// execve of a name that is not there (a shell or execvp trying each directory of PATH): ENOENT or ENOTDIR
// as the guest's kernel finds it before anything else; nullopt for a program that is there, which the
// kernel runs.
std::optional<GuestFileIo::Done> execute_missing(tracer::Task& task, const tracer::SyscallStop& stop) {
    const auto found = find_named(task, AT_FDCWD, stop.args[0], true);
    return found && found->file.get() < 0 ? missing_answer(*found) : std::nullopt;
}

// unlink, rmdir, mkdir, link, rename and symlink (and their *at forms), done by the tracer in the directories
// the guest's kernel would find (GuestPathLookup::parent_of), as the guest; nullopt for a path or an argument
// left to the kernel, and for a refusal (EACCES, EPERM) that the guest's own capabilities might overcome.
std::optional<GuestFileIo::Done> change_name(tracer::Task& task, const tracer::SyscallStop& stop) {
    using tracer::virt::GuestPathLookup;
    const bool at_directory = stop.number == SYS_unlinkat || stop.number == SYS_mkdirat;
    const int dirfd = at_directory ? static_cast<int>(stop.args[0]) : AT_FDCWD;
    auto parent = [&](int directory, uint64_t path_address) -> std::optional<GuestPathLookup::Parent> {
        const auto path = GuestPathLookup::read_path(task, path_address);
        return path ? GuestPathLookup::parent_of(task, directory, *path) : std::nullopt;
    };
    if (!GuestPathLookup::shares_credentials(task)) {
        return std::nullopt;
    }
    const GuestPathLookup::AsGuest guest_permissions; // for the lookups and the change
    // A directory on the way names nothing: the kernel's ENOENT or ENOTDIR, the first path's first.
    auto missing = [](const std::optional<GuestPathLookup::Parent>& name) {
        return name && name->directory.get() < 0 ? std::optional(GuestFileIo::Done{-name->missing, {}})
                                                 : std::nullopt;
    };
    int result = 0;
    switch (stop.number) {
    case SYS_unlink:
    case SYS_unlinkat:
    case SYS_rmdir: {
        const uint64_t flags = stop.number == SYS_unlinkat ? stop.args[2]
                               : stop.number == SYS_rmdir  ? AT_REMOVEDIR
                                                           : 0;
        if ((flags & ~uint64_t{AT_REMOVEDIR}) != 0) {
            return std::nullopt;
        }
        const auto name = parent(dirfd, stop.args[at_directory ? 1 : 0]);
        if (!name || missing(name)) {
            return missing(name);
        }
        result = GuestPathLookup::change_as_guest(
            [&] { return unlinkat(name->directory.get(), name->name.c_str(), static_cast<int>(flags)); });
        break;
    }
    case SYS_mkdir:
    case SYS_mkdirat: {
        const auto name = parent(dirfd, stop.args[at_directory ? 1 : 0]);
        const std::optional<mode_t> mask = task.file_creation_mask();
        if (!name || missing(name) || !mask) {
            return missing(name);
        }
        const auto mode = static_cast<mode_t>(stop.args[at_directory ? 2 : 1]);
        result = GuestPathLookup::create_as_guest(
            *mask, [&] { return mkdirat(name->directory.get(), name->name.c_str(), mode); });
        break;
    }
    case SYS_symlink:
    case SYS_symlinkat: {
        const bool at = stop.number == SYS_symlinkat;
        const auto target = GuestPathLookup::read_path(task, stop.args[0]);
        const auto name = parent(at ? static_cast<int>(stop.args[1]) : AT_FDCWD, stop.args[at ? 2 : 1]);
        if (!target || !name || missing(name)) {
            return target ? missing(name) : std::nullopt;
        }
        result = GuestPathLookup::change_as_guest(
            [&] { return symlinkat(target->c_str(), name->directory.get(), name->name.c_str()); });
        break;
    }
    default: { // link, linkat, rename, renameat, renameat2: (dirfd, path, dirfd, path, flags) or (path, path)
        const bool linking = stop.number == SYS_link || stop.number == SYS_linkat;
        const bool at = stop.number != SYS_link && stop.number != SYS_rename;
        const uint64_t flags = stop.number == SYS_linkat || stop.number == SYS_renameat2 ? stop.args[4] : 0;
        // AT_SYMLINK_FOLLOW is left to the kernel: hermit would resolve the link's target in its own root.
        const uint64_t known_flags = linking ? 0 : RENAME_NOREPLACE | RENAME_EXCHANGE;
        if ((flags & ~known_flags) != 0) {
            return std::nullopt;
        }
        const auto from = parent(at ? static_cast<int>(stop.args[0]) : AT_FDCWD, stop.args[at ? 1 : 0]);
        const auto to = parent(at ? static_cast<int>(stop.args[2]) : AT_FDCWD, stop.args[at ? 3 : 1]);
        if (!from || missing(from) || !to || missing(to)) {
            // link resolves its first path whole before it looks at the second's directory.
            const bool first_decides = missing(from) || linking;
            return first_decides ? missing(from) : from && to ? missing(to) : std::nullopt;
        }
        result = GuestPathLookup::change_as_guest([&] {
            const int old_directory = from->directory.get();
            const int new_directory = to->directory.get();
            return linking ? linkat(old_directory, from->name.c_str(), new_directory, to->name.c_str(),
                                    static_cast<int>(flags))
                           : renameat2(old_directory, from->name.c_str(), new_directory, to->name.c_str(),
                                       static_cast<unsigned>(flags));
        });
        break;
    }
    }
    if (result == -EACCES || result == -EPERM) {
        return std::nullopt;
    }
    return GuestFileIo::Done{result, {}};
}

// getcwd(buffer, size): the working directory's path from /proc, which names it from hermit's root, the
// guest's too unless it changed its root; nullopt for anything else (a deleted directory, a path too long
// for a page).
std::optional<GuestFileIo::Done> working_directory(tracer::Task& task, const tracer::SyscallStop& stop) {
    // Hermit's root does not change while it runs.
    static const std::optional<ObjectIdentity> own_root = [] {
        struct stat root {};
        return stat("/", &root) == 0 ? std::optional(ObjectIdentity{root.st_dev, root.st_ino}) : std::nullopt;
    }();
    const std::string process = "/proc/" + std::to_string(task.host_tid());
    struct stat guest_root {};
    if (!own_root || stat((process + "/root").c_str(), &guest_root) != 0 ||
        ObjectIdentity{guest_root.st_dev, guest_root.st_ino} != *own_root) {
        return std::nullopt;
    }
    std::vector<uint8_t> path(PATH_MAX);
    const ssize_t length =
        readlink((process + "/cwd").c_str(), reinterpret_cast<char*>(path.data()), path.size());
    if (length <= 0 || static_cast<size_t>(length) >= path.size() || path[0] != '/' ||
        std::string_view(reinterpret_cast<const char*>(path.data()), static_cast<size_t>(length))
            .ends_with(" (deleted)")) {
        return std::nullopt;
    }
    // The kernel's getcwd returns the length with the terminating NUL.
    path.resize(static_cast<size_t>(length) + 1);
    path.back() = 0;
    if (path.size() > stop.args[1]) {
        return GuestFileIo::Done{-ERANGE, {}};
    }
    if (!task.write(stop.args[0], path.data(), path.size())) {
        return std::nullopt;
    }
    GuestFileIo::Done done{static_cast<int64_t>(path.size()), {}};
    done.outputs.push_back(MemoryWrite{stop.args[0], std::move(path)});
    return done;
}

// An ioctl that only reports the state of the guest's descriptor, asked of hermit's duplicate of it, which
// names the same open file. Not TIOCGPGRP: its answer is a process group id as hermit's pid namespace
// numbers it.
std::optional<GuestFileIo::Done> query_descriptor(tracer::Task& task, const tracer::SyscallStop& stop) {
    const uint64_t request = stop.args[1];
    if (!GuestFileIo::reports_state(request) || request == TIOCGPGRP) {
        return std::nullopt;
    }
    UniqueFd file = tracer::duplicate_guest_descriptor(task.host_pid(), static_cast<int>(stop.args[0]));
    if (file.get() < 0) {
        return std::nullopt;
    }
    std::array<uint8_t, 256> answer{};
    if (ioctl(file.get(), request, answer.data()) != 0) {
        return GuestFileIo::Done{-errno, {}};
    }
    GuestFileIo::Done done{0, {}};
    for (const tracer::OutputRange& range :
         tracer::syscall_outputs(*tracer::find_syscall(SYS_ioctl), stop.args, 0, task)) {
        std::vector<uint8_t> bytes(answer.begin(), answer.begin() + static_cast<long>(std::min<uint64_t>(
                                                                        range.length, answer.size())));
        if (!task.write(range.address, bytes.data(), bytes.size())) {
            return std::nullopt;
        }
        done.outputs.push_back(MemoryWrite{range.address, std::move(bytes)});
    }
    return done;
}

} // namespace

bool GuestFileIo::reports_state(uint64_t request) {
    return request == TCGETS || request == TIOCGWINSZ || request == FIONREAD || request == TIOCGPGRP;
}

bool GuestFileIo::changes_terminal(uint64_t request) {
    // The terminal requests are the 'T' (0x54) group, which also holds the descriptor's own flags.
    constexpr uint64_t kTerminalGroup = 0x54;
    return (request >> 8) == kTerminalGroup && !reports_state(request) && request != FIONBIO &&
           request != FIOASYNC && request != FIOCLEX && request != FIONCLEX;
}

const std::set<int>& GuestFileIo::name_changes() {
    static const std::set<int> numbers = {SYS_unlink,   SYS_unlinkat,  SYS_rmdir,   SYS_mkdir,
                                          SYS_mkdirat,  SYS_link,      SYS_linkat,  SYS_rename,
                                          SYS_renameat, SYS_renameat2, SYS_symlink, SYS_symlinkat};
    return numbers;
}

std::optional<GuestFileIo::Done>
GuestFileIo::perform(tracer::Task& task, const tracer::SyscallStop& stop,
                     const std::function<bool(const ObjectIdentity&)>& accept) {
    if (stop.number == SYS_getcwd) {
        return working_directory(task, stop);
    }
    if (stop.number == SYS_ioctl) {
        return query_descriptor(task, stop);
    }
    if (stop.number == SYS_readlink || stop.number == SYS_readlinkat) {
        return read_link(task, stop);
    }
    if (is_access(stop.number)) {
        return check_access(task, stop);
    }
    if (stop.number == SYS_execve) {
        return execute_missing(task, stop);
    }
    if (stop.number == SYS_getxattr || stop.number == SYS_lgetxattr) {
        return get_attribute(task, stop);
    }
    if (name_changes().contains(stop.number)) {
        return change_name(task, stop);
    }
    if (!is_file_io(stop.number) || (stop.number != SYS_lseek && stop.args[2] > kMaxTransferBytes)) {
        return std::nullopt;
    }
    UniqueFd file = tracer::duplicate_guest_descriptor(task.host_pid(), static_cast<int>(stop.args[0]));
    struct stat info {};
    if (file.get() < 0 || fstat(file.get(), &info) != 0 || !S_ISREG(info.st_mode) ||
        !accept(ObjectIdentity{info.st_dev, info.st_ino})) {
        return std::nullopt;
    }
    if (stop.number == SYS_lseek) {
        const off_t offset =
            lseek(file.get(), static_cast<off_t>(stop.args[1]), static_cast<int>(stop.args[2]));
        return Done{offset < 0 ? -errno : offset, {}};
    }
    const int flags = fcntl(file.get(), F_GETFL);
    const bool reading = stop.number == SYS_read || stop.number == SYS_pread64;
    // Files whose size reads as 0 (/proc, /sys) produce their contents on read.
    if (flags < 0 || (flags & O_DIRECT) != 0 || (reading && info.st_size == 0)) {
        return std::nullopt;
    }
    return reading ? read_into_guest(task, stop, file.get(), info) : write_from_guest(task, stop, file.get());
}

bool GuestFileIo::move_offset(const tracer::Task& task, int fd, int64_t offset, int whence) {
    UniqueFd file = tracer::duplicate_guest_descriptor(task.host_pid(), fd);
    struct stat info {};
    return file.get() >= 0 && fstat(file.get(), &info) == 0 && S_ISREG(info.st_mode) &&
           lseek(file.get(), offset, whence) >= 0;
}

} // namespace hermit::replay
