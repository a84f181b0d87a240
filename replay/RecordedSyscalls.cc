#include "RecordedSyscalls.h"

#include <sys/syscall.h>

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

namespace hermit::replay {

namespace {

using enum ReplayTreatment;

constexpr std::array<std::pair<int, ReplayTreatment>, 58> kTreatments = {{
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
    {SYS_open, OpenFile},
    {SYS_openat, OpenFile},
    {SYS_openat2, OpenFile},
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
    {SYS_execve, Execute},
    {SYS_execveat, Execute},
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
    for (const auto& [syscall, treatment] : kTreatments) {
        numbers.insert(syscall);
    }
    return numbers;
}

bool is_system_file(const std::string& absolute_path) {
    constexpr std::array<std::string_view, 7> kSystemDirectories = {"/usr/",  "/lib/", "/lib64/", "/etc/",
                                                                    "/proc/", "/sys/", "/dev/"};
    return std::any_of(kSystemDirectories.begin(), kSystemDirectories.end(),
                       [&](std::string_view directory) { return absolute_path.starts_with(directory); });
}

} // namespace hermit::replay
