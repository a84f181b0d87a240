/* The contract between hermit's tracer and its preload library (libhermit_preload.so), which answers some
 * file-name syscalls inside the guest while recording and replaying, without a stop (tracer/SyscallBuffer.h).
 * C, for the library; the tracer includes it too. */
#ifndef HERMIT_SYSCALL_BUFFER_H
#define HERMIT_SYSCALL_BUFFER_H

#include <fcntl.h>
#include <linux/magic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>

/* A syscall number no kernel has: registers the calling thread's buffer (its address in the first argument,
 * its size in the second, in the third a memfd that holds it, sealed against shrinking; 0 unregisters).
 * The tracer traps it, maps the memfd too (so it reads and writes the buffer without a syscall), answers
 * 0 and writes the mode into the header; without hermit the kernel answers -ENOSYS and the library stays
 * out of the way. */
#define HERMIT_BUFFER_REGISTER_SYSCALL 1000

/* The page where the library maps its call site: code that makes the syscall of its first argument with
 * the next five, whose `syscall` instruction ends at HERMIT_BUFFER_CALL_SITE_RETURN. While recording, the
 * seccomp filters let the buffered syscalls through from there. Beside the vDSO clock page (16 TiB). */
#define HERMIT_BUFFER_CALL_SITE 0x100000010000ULL
#define HERMIT_BUFFER_CALL_SITE_RETURN (HERMIT_BUFFER_CALL_SITE + 20)

#define HERMIT_BUFFER_SIZE 65536

/* Directories whose files answer the same in a recording and in its replay (replay/RecordedSyscalls.h):
 * an access to a path under one of them, without "." or ".." components, is left to the kernel and leaves
 * no event; the library makes it from the call site in both modes, without an entry. */
#define HERMIT_STABLE_SYSTEM_DIRECTORIES                                                                     \
    { "/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/etc/" }

/* Directories whose files answer each process its own way, some of them hermit's virtual files: the
 * recorder copies none, and the library leaves opens under them to the tracer. */
#define HERMIT_PROCESS_DIRECTORIES                                                                           \
    { "/proc/", "/sys/", "/dev/" }

/* File systems whose files the kernel makes as they are read (proc, sysfs, cgroup, FUSE, ...), by their
 * statfs f_type: hermit opens nothing on them for the guest, and the library creates no file there. */
#define HERMIT_PSEUDO_FILE_SYSTEMS                                                                           \
    {                                                                                                        \
        PROC_SUPER_MAGIC, SYSFS_MAGIC, DEBUGFS_MAGIC, TRACEFS_MAGIC, CGROUP_SUPER_MAGIC,                     \
            CGROUP2_SUPER_MAGIC, SECURITYFS_MAGIC, BPF_FS_MAGIC, 0x65735546 /* FUSE */                       \
    }

/* An openat that makes a new file (O_CREAT with O_EXCL, not O_TMPFILE): git's objects, a build's temporary
 * files. Recording, the library makes it from the call site (its directory on no pseudo file system), so
 * the file is the guest's from the start and hermit has nothing to copy; its entry holds the path. A
 * placed entry of one that succeeded holds, after the path, the file the library opens instead (with the
 * same flags and mode, from the call site): the replay's private file for that name. The descriptor it
 * gets must be the recorded result. */
static inline int hermit_buffer_creates_new_file(long flags) {
    return (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL) && (flags & O_TMPFILE) != O_TMPFILE;
}

enum hermit_buffer_mode {
    HERMIT_BUFFER_OFF = 0,
    /* The library makes the syscall from the call site and appends an entry with its result. */
    HERMIT_BUFFER_RECORD = 1,
    /* The tracer placed the recorded entries of the thread's next calls; the library returns their results
     * when the calls match them, and makes a trapped syscall otherwise. */
    HERMIT_BUFFER_REPLAY = 2,
};

struct hermit_buffer_header {
    uint32_t mode;   /* enum hermit_buffer_mode, written by the tracer at registration */
    uint32_t done;   /* calls the guest completed since the tracer last took them */
    uint32_t used;   /* bytes of entries those calls wrote (record) or consumed (replay) */
    uint32_t placed; /* replay: bytes of entries the tracer placed */
};

/* One call, followed by its path arguments as NUL-terminated strings in argument order; `size` covers
 * them and is a multiple of 8. */
struct hermit_buffer_entry {
    int32_t number;
    uint32_t size;
    int64_t result; /* raw: negative errno */
    uint64_t args[6];
};

/* Bit i set for each argument i of a buffered syscall that is a path; 0 for any other syscall. The library
 * copies these strings into an entry in this order, and the tracer reads them back so. */
static inline unsigned hermit_buffer_path_arguments(long number) {
    switch (number) {
    case SYS_access:
    case SYS_unlink:
    case SYS_mkdir:
        return 1u << 0;
    case SYS_faccessat:
    case SYS_unlinkat:
    case SYS_mkdirat:
    case SYS_openat:
        return 1u << 1;
    case SYS_link:
    case SYS_rename:
        return 1u << 0 | 1u << 1;
    case SYS_linkat:
    case SYS_renameat:
        return 1u << 1 | 1u << 3;
    default:
        return 0;
    }
}

/* The size of an entry whose paths take `path_bytes` (their NULs included): a multiple of 8. */
static inline size_t hermit_buffer_entry_size(size_t path_bytes) {
    return (sizeof(struct hermit_buffer_entry) + path_bytes + 7) & ~(size_t)7;
}

#endif
