// Included by guests that test how the tracer answers file-name syscalls: their libc calls would be answered
// inside the guest by hermit's preload library when recording and replaying (tracer/SyscallBuffer.h), so
// they make the syscalls themselves, as libc would. Include after the system headers.
#include <sys/syscall.h>
#include <unistd.h>

#define access(path, mode) syscall(SYS_access, path, mode)
#define faccessat(dirfd, path, mode, flags) syscall(SYS_faccessat2, dirfd, path, mode, flags)
#define unlink(path) syscall(SYS_unlink, path)
#define unlinkat(dirfd, path, flags) syscall(SYS_unlinkat, dirfd, path, flags)
#define link(from, to) syscall(SYS_link, from, to)
#define linkat(from_dirfd, from, to_dirfd, to, flags)                                                        \
    syscall(SYS_linkat, from_dirfd, from, to_dirfd, to, flags)
#define mkdir(path, mode) syscall(SYS_mkdir, path, mode)
#define mkdirat(dirfd, path, mode) syscall(SYS_mkdirat, dirfd, path, mode)
#define rename(from, to) syscall(SYS_rename, from, to)
#define renameat(from_dirfd, from, to_dirfd, to) syscall(SYS_renameat, from_dirfd, from, to_dirfd, to)
