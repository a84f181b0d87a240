#include "RecordedSyscalls.h"

#include "GuestFileIo.h"
#include "tracer/ProcFs.h"
#include "tracer/SyscallBuffer.h"
#include "tracer/SyscallTable.h"
#include "tracer/preload/syscall_buffer.h"
#include "tracer/virt/GuestOpen.h"
#include "tracer/virt/GuestPathLookup.h"
#include "tracer/virt/StatInTracer.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

namespace hermit::replay {

namespace {

using enum ReplayTreatment;

constexpr std::array<std::pair<int, ReplayTreatment>, 73> kTreatments = {{
    {SYS_read, EmulateFromLog},
    {SYS_pread64, EmulateFromLog},
    {SYS_readv, EmulateFromLog},
    {SYS_preadv, EmulateFromLog},
    {SYS_preadv2, EmulateFromLog},
    {SYS_recvfrom, EmulateFromLog},
    {SYS_recvmsg, EmulateFromLog},
    {SYS_getdents64, EmulateFromLog},
    {SYS_getdents, EmulateFromLog},
    {SYS_stat, EmulateFromLog},
    {SYS_fstat, EmulateFromLog},
    {SYS_lstat, EmulateFromLog},
    {SYS_newfstatat, EmulateFromLog},
    {SYS_statx, EmulateFromLog},
    {SYS_lseek, EmulateFromLog},
    {SYS_access, EmulateFromLog},
    {SYS_faccessat, EmulateFromLog},
    {SYS_faccessat2, EmulateFromLog},
    {SYS_readlink, EmulateFromLog},
    {SYS_readlinkat, EmulateFromLog},
    {SYS_poll, EmulateFromLog},
    {SYS_ppoll, EmulateFromLog},
    {SYS_select, EmulateFromLog},
    {SYS_pselect6, EmulateFromLog},
    {SYS_epoll_wait, EmulateFromLog},
    {SYS_epoll_pwait, EmulateFromLog},
    {SYS_ioctl, EmulateFromLog},
    {SYS_getcwd, EmulateFromLog},
    {SYS_getxattr, EmulateFromLog},
    {SYS_lgetxattr, EmulateFromLog},
    {SYS_fgetxattr, EmulateFromLog},
    {SYS_listxattr, EmulateFromLog},
    {SYS_llistxattr, EmulateFromLog},
    {SYS_flistxattr, EmulateFromLog},
    {SYS_open, OpenFile},
    {SYS_openat, OpenFile},
    {SYS_openat2, OpenFile},
    {SYS_creat, OpenFile},
    {SYS_write, Write},
    {SYS_writev, Write},
    {SYS_pwrite64, Write},
    {SYS_sendto, Write},
    {SYS_sendmsg, Write},
    {SYS_unlink, ChangePath},
    {SYS_unlinkat, ChangePath},
    {SYS_rename, ChangePath},
    {SYS_renameat, ChangePath},
    {SYS_renameat2, ChangePath},
    {SYS_mkdir, ChangePath},
    {SYS_mkdirat, ChangePath},
    {SYS_rmdir, ChangePath},
    {SYS_link, ChangePath},
    {SYS_linkat, ChangePath},
    {SYS_symlink, ChangePath},
    {SYS_symlinkat, ChangePath},
    {SYS_chmod, ChangePath},
    {SYS_fchmodat, ChangePath},
    {SYS_chown, ChangePath},
    {SYS_lchown, ChangePath},
    {SYS_fchownat, ChangePath},
    {SYS_truncate, ChangePath},
    {SYS_utime, ChangePath},
    {SYS_utimes, ChangePath},
    {SYS_utimensat, ChangePath},
    {SYS_setxattr, ChangePath},
    {SYS_lsetxattr, ChangePath},
    {SYS_fsetxattr, ChangePath},
    {SYS_removexattr, ChangePath},
    {SYS_lremovexattr, ChangePath},
    {SYS_fremovexattr, ChangePath},
    {SYS_execve, Execute},
    {SYS_execveat, Execute},
    {SYS_chdir, ChangeDirectory},
}};

} // namespace

ReplayTreatment replay_treatment(int number) {
    for (const auto& [syscall, treatment] : kTreatments) {
        if (syscall == number) {
            return treatment;
        }
    }
    return NotRecorded;
}

std::set<int> recorded_syscalls() {
    std::set<int> numbers;
    const std::set<int> by_descriptor = descriptor_syscalls();
    for (const auto& [syscall, treatment] : kTreatments) {
        if (!by_descriptor.contains(syscall)) {
            numbers.insert(syscall);
        }
    }
    numbers.insert(tracer::syscall_buffer::kRegisterSyscall);
    return numbers;
}

std::set<int> notifiable_recorded_syscalls() {
    std::set<int> numbers = tracer::virt::StatInTracer::stat_syscalls();
    numbers.insert({SYS_readlink, SYS_readlinkat});
    numbers.insert(GuestFileIo::name_changes().begin(), GuestFileIo::name_changes().end());
    numbers.insert({SYS_access, SYS_faccessat, SYS_faccessat2, SYS_getxattr, SYS_lgetxattr, SYS_open,
                    SYS_openat, SYS_getdents64, SYS_getcwd, SYS_ioctl,
                    tracer::syscall_buffer::kRegisterSyscall});
    return numbers;
}

std::set<int> descriptor_syscalls() {
    return {SYS_read,  SYS_pread64, SYS_readv,    SYS_preadv, SYS_preadv2,
            SYS_write, SYS_writev,  SYS_pwrite64, SYS_lseek};
}

bool must_trap_descriptor(pid_t host_pid, int fd) {
    const std::string link = tracer::procfs::descriptor_link(host_pid, fd);
    struct stat info {};
    if (stat(link.c_str(), &info) != 0) {
        return true;
    }
    if (S_ISCHR(info.st_mode)) {
        // /dev/null, /dev/zero and /dev/full answer the same every time; /dev/random does not.
        return major(info.st_rdev) != 1 ||
               (minor(info.st_rdev) != 3 && minor(info.st_rdev) != 5 && minor(info.st_rdev) != 7);
    }
    // A directory is listed by getdents, which is always trapped; reading it fails the same every time.
    if (S_ISDIR(info.st_mode)) {
        return false;
    }
    struct statfs file_system {};
    // Their contents are made as they are read.
    return !S_ISREG(info.st_mode) || statfs(link.c_str(), &file_system) != 0 ||
           tracer::virt::GuestOpen::is_pseudo_file_system(file_system.f_type);
}

std::vector<int32_t> initially_trapped_descriptors(const std::vector<InheritedDescriptor>& inherited) {
    std::vector<int32_t> trapped;
    struct stat input {};
    if (!(fstat(0, &input) == 0 && S_ISREG(input.st_mode)) && must_trap_descriptor(getpid(), 0)) {
        trapped.push_back(0);
    }
    // Output to a regular file too: the recording keeps the bytes, so a replay checks them and, going back
    // and forth under gdb, prints them once.
    for (int fd = 1; fd <= 2; fd++) {
        struct stat output {};
        if ((fstat(fd, &output) == 0 && S_ISREG(output.st_mode)) || must_trap_descriptor(getpid(), fd)) {
            trapped.push_back(fd);
        }
    }
    for (const InheritedDescriptor& descriptor : inherited) {
        trapped.push_back(descriptor.fd);
    }
    return trapped;
}

tracer::DescriptorTraps recorded_descriptor_traps(const RecordingMeta& meta) {
    return tracer::DescriptorTraps(
        descriptor_syscalls(),
        std::set<int>(meta.trapped_descriptors.begin(), meta.trapped_descriptors.end()),
        must_trap_descriptor);
}

namespace {

// System directories whose files say the same whoever asks; /proc, /sys and /dev answer each process its
// own way.
constexpr std::array<std::string_view, 6> kStableSystemDirectories = HERMIT_STABLE_SYSTEM_DIRECTORIES;
constexpr std::array<std::string_view, 3> kProcessDirectories = HERMIT_PROCESS_DIRECTORIES;
// Under /dev, a tmpfs of ordinary files that projects and builds use as fast storage.
constexpr std::string_view kSharedMemoryDirectory = "/dev/shm/";

template <size_t N>
bool under_one_of(const std::array<std::string_view, N>& directories, std::string_view absolute_path) {
    return std::any_of(directories.begin(), directories.end(),
                       [&](std::string_view directory) { return absolute_path.starts_with(directory); });
}

} // namespace

uint64_t open_flags(tracer::Task& task, const tracer::SyscallStop& stop) {
    if (stop.number == SYS_openat2) {
        return task.read_value<open_how>(stop.args[2]).value_or(open_how{}).flags;
    }
    if (stop.number == SYS_creat) {
        return O_CREAT | O_WRONLY | O_TRUNC;
    }
    return stop.args[tracer::open_flags_argument(stop.number)];
}

bool opens_for_writing(uint64_t flags) {
    return (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC)) != 0;
}

bool is_system_file(const std::string& absolute_path) {
    // /bin and /sbin are links into /usr on most distributions, where `sh -c` and PATH lookups find them.
    return under_one_of(kStableSystemDirectories, absolute_path) ||
           (under_one_of(kProcessDirectories, absolute_path) &&
            !absolute_path.starts_with(kSharedMemoryDirectory));
}

bool is_stable_system_file(const std::string& absolute_path) {
    return under_one_of(kStableSystemDirectories, absolute_path);
}

bool asks_about_system_file(tracer::Task& task, const tracer::SyscallStop& stop) {
    const bool at_directory =
        stop.number == SYS_readlinkat || stop.number == SYS_faccessat || stop.number == SYS_faccessat2;
    const bool by_path = stop.number == SYS_readlink || stop.number == SYS_access ||
                         stop.number == SYS_getxattr || stop.number == SYS_lgetxattr ||
                         stop.number == SYS_listxattr || stop.number == SYS_llistxattr;
    if (!at_directory && !by_path) {
        return false;
    }
    const auto path = tracer::virt::GuestPathLookup::read_path(task, stop.args[at_directory ? 1 : 0]);
    // The directory itself too ("/usr", which realpath asks about first); "." and ".." could lead out.
    return path && under_one_of(kStableSystemDirectories, *path + "/") &&
           path->find("/./") == std::string::npos && path->find("/../") == std::string::npos &&
           !path->ends_with("/.") && !path->ends_with("/..");
}

} // namespace hermit::replay
