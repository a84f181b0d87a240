/* libhermit_preload.so: loaded into guests that hermit records or replays (LD_PRELOAD). It answers the
 * file-name syscalls a build makes by the thousand (access, unlink, link, mkdir, rename, and the opens that
 * find no file; readlink and realpath of system files) without a stop of the tracer: while recording it makes
 * them itself, from a call site the seccomp filters let through, and appends each result to the thread's
 * buffer, which the tracer takes at the thread's next stop; while replaying it returns the recorded results
 * the tracer placed in the buffer. Anything it cannot answer that way (a call that does not match, a full
 * buffer, a thread it has no buffer for) is made as an ordinary, trapped syscall. See
 * tracer/preload/syscall_buffer.h and tracer/SyscallBuffer.h. */
#define _GNU_SOURCE
#include "syscall_buffer.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

typedef long (*call_site_function)(long number, long a0, long a1, long a2, long a3, long a4);
/* The call site, once initialize() mapped it (a thread with a buffer): makes syscall `number` with the next
 * five arguments and returns its raw result (-errno), leaving errno alone. */
static const call_site_function call_site = (call_site_function)HERMIT_BUFFER_CALL_SITE;

/* mov rax,rdi; mov rdi,rsi; mov rsi,rdx; mov rdx,rcx; mov r10,r8; mov r8,r9; syscall; ret */
static const unsigned char call_site_code[] = {0x48, 0x89, 0xf8, 0x48, 0x89, 0xf7, 0x48,
                                               0x89, 0xd6, 0x48, 0x89, 0xca, 0x4d, 0x89,
                                               0xc2, 0x4d, 0x89, 0xc8, 0x0f, 0x05, 0xc3};
_Static_assert(sizeof(call_site_code) == HERMIT_BUFFER_CALL_SITE_RETURN - HERMIT_BUFFER_CALL_SITE + 1,
               "the syscall instruction ends where the filters expect it");

struct thread_state {
    struct hermit_buffer_header* buffer;
    pid_t tid;      /* the thread that registered `buffer`; another (a vfork child) gets no answers */
    int registered; /* cleared in a forked child, which registers its copy of the buffer again */
    int busy;       /* a signal handler's call inside a call goes to the kernel */
};

static __thread struct thread_state state;
static int unavailable; /* not under hermit, or the call site could not be mapped */
static pthread_key_t exit_key;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static long kernel_result(long result) {
    if (result < 0 && result > -4096) {
        errno = (int)-result;
        return -1;
    }
    return result;
}

static int map_call_site(void) {
    void* page = mmap((void*)HERMIT_BUFFER_CALL_SITE, 4096, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (page == MAP_FAILED) {
        /* A forked child has its parent's. */
        return errno == EEXIST &&
               memcmp((const void*)HERMIT_BUFFER_CALL_SITE, call_site_code, sizeof(call_site_code)) == 0;
    }
    memcpy(page, call_site_code, sizeof(call_site_code));
    return mprotect(page, 4096, PROT_READ | PROT_EXEC) == 0;
}

/* At thread exit: the tracer takes what the buffer holds at the unregistering syscall, then it goes. */
static void release_buffer(void* buffer) {
    if (state.registered && state.tid == (pid_t)syscall(SYS_gettid)) {
        syscall(HERMIT_BUFFER_REGISTER_SYSCALL, 0L, 0L, 0L, 0L, 0L, 0L);
    }
    munmap(buffer, HERMIT_BUFFER_SIZE);
    state.buffer = NULL;
    state.registered = 0;
}

/* A forked child has its parent's buffer mapped, shared: it makes its own at its first call. */
static void forget_registration_in_child(void) {
    if (state.buffer != NULL) {
        munmap(state.buffer, HERMIT_BUFFER_SIZE);
        pthread_setspecific(exit_key, NULL);
    }
    state.buffer = NULL;
    state.registered = 0;
}

static void initialize(void) {
    if (!map_call_site() || pthread_key_create(&exit_key, release_buffer) != 0 ||
        pthread_atfork(NULL, NULL, forget_registration_in_child) != 0) {
        unavailable = 1;
    }
}

/* A new buffer in a memfd, sealed so that it cannot shrink under the tracer's mapping of it; its
 * descriptor in `memory`, to register it with. */
static struct hermit_buffer_header* new_buffer(int* memory) {
    *memory = (int)syscall(SYS_memfd_create, "hermit-syscall-buffer", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (*memory < 0) {
        return NULL;
    }
    void* buffer = MAP_FAILED;
    if (ftruncate(*memory, HERMIT_BUFFER_SIZE) == 0 &&
        fcntl(*memory, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) == 0) {
        buffer = mmap(NULL, HERMIT_BUFFER_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, *memory, 0);
    }
    if (buffer == MAP_FAILED) {
        close(*memory);
        return NULL;
    }
    return buffer;
}

static struct hermit_buffer_header* thread_buffer(void) {
    const pid_t tid = (pid_t)syscall(SYS_gettid);
    if (state.registered) {
        return state.tid == tid ? state.buffer : NULL;
    }
    pthread_once(&once, initialize);
    int memory = -1;
    if (unavailable || (state.buffer = new_buffer(&memory)) == NULL) {
        return NULL;
    }
    pthread_setspecific(exit_key, state.buffer);
    const long registered = syscall(HERMIT_BUFFER_REGISTER_SYSCALL, state.buffer, (long)HERMIT_BUFFER_SIZE,
                                    (long)memory, 0L, 0L, 0L);
    close(memory); /* the tracer has its own */
    if (registered != 0 || state.buffer->mode == HERMIT_BUFFER_OFF) {
        unavailable = 1;
        return NULL;
    }
    state.tid = tid;
    state.registered = 1;
    return state.buffer;
}

/* Whether `path` starts with one of the `count` `directories` (each ending in '/'). */
static int under_one_of(const char* path, const char* const directories[], size_t count) {
    for (size_t index = 0; index < count; index++) {
        if (strncmp(path, directories[index], strlen(directories[index])) == 0) {
            return 1;
        }
    }
    return 0;
}

/* Whether hermit leaves an access of `path` to the kernel (replay/RecordedSyscalls.h,
 * asks_about_system_file): an absolute path in a stable system directory, or that directory, without "."
 * or ".." components. */
static int is_stable_system_path(const char* path) {
    static const char* const directories[] = HERMIT_STABLE_SYSTEM_DIRECTORIES;
    const size_t length = strlen(path);
    int inside = 0;
    for (size_t index = 0; index < sizeof(directories) / sizeof(directories[0]); index++) {
        const size_t prefix = strlen(directories[index]);
        inside |= strncmp(path, directories[index], prefix) == 0 ||
                  (length == prefix - 1 && strncmp(path, directories[index], length) == 0);
    }
    const int ends_with_dot = (length >= 2 && strcmp(path + length - 2, "/.") == 0) ||
                              (length >= 3 && strcmp(path + length - 3, "/..") == 0);
    return inside && strstr(path, "/./") == NULL && strstr(path, "/../") == NULL && !ends_with_dot;
}

static unsigned char* entries(struct hermit_buffer_header* buffer) {
    return (unsigned char*)(buffer + 1);
}

static int is_path_argument(unsigned mask, int index) {
    return (mask >> index) & 1;
}

/* The library's opens are all openat, as glibc's. */
static int is_open(int number) {
    return number == SYS_openat;
}

/* The directory that `path` names its last component in ("." for a bare name); empty when it does not fit. */
static void parent_directory(const char* path, char parent[PATH_MAX]) {
    size_t length = strnlen(path, PATH_MAX);
    parent[0] = '\0';
    if (length == PATH_MAX) {
        return;
    }
    while (length > 1 && path[length - 1] == '/') {
        length--;
    }
    while (length > 0 && path[length - 1] != '/') {
        length--;
    }
    if (length == 0) {
        strcpy(parent, ".");
        return;
    }
    memcpy(parent, path, length);
    parent[length] = '\0';
}

/* Whether `directory` lies on a file system where the library may create a file: known, and no pseudo file
 * system (HERMIT_PSEUDO_FILE_SYSTEMS), whose descriptors hermit traps. 1 if so; -ENOENT or -ENOTDIR when it
 * names nothing (the open fails for want of it); else 0. From the call site: the guest's errno stays. */
static long creatable_in(const char* directory) {
    static const long pseudo_file_systems[] = HERMIT_PSEUDO_FILE_SYSTEMS;
    struct statfs file_system;
    if (directory[0] == '\0') {
        return 0;
    }
    const long found = call_site(SYS_statfs, (long)directory, (long)&file_system, 0, 0, 0);
    if (found != 0) {
        return found == -ENOENT || found == -ENOTDIR ? found : 0;
    }
    for (size_t index = 0; index < sizeof(pseudo_file_systems) / sizeof(pseudo_file_systems[0]); index++) {
        if ((long)file_system.f_type == pseudo_file_systems[index]) {
            return 0;
        }
    }
    return 1;
}

/* Recording: the call from the call site, its result in `result`. An open that makes a new file is made
 * here when its directory allows (creatable_in); another open is answered here only when it fails for want
 * of a file (ENOENT, ENOTDIR): an existence check as the open's effective ids, of the file or, for an open
 * that creates it, of its directory, finds that without opening anything. An open that gets past it is not
 * answered (0): it goes to the tracer, which copies or creates the file. */
static int call_or_probe(int number, const long args[6], long* result) {
    if (!is_open(number)) {
        *result = call_site(number, args[0], args[1], args[2], args[3], args[4]);
        return 1;
    }
    char parent[PATH_MAX];
    const char* checked = (const char*)args[1];
    long check = AT_EACCESS | ((args[2] & O_NOFOLLOW) != 0 ? AT_SYMLINK_NOFOLLOW : 0);
    if (hermit_buffer_creates_new_file(args[2])) {
        parent_directory(checked, parent);
        const long creatable = creatable_in(parent);
        *result = creatable > 0 ? call_site(number, args[0], args[1], args[2], args[3], args[4]) : creatable;
        return creatable != 0;
    }
    if ((args[2] & O_CREAT) != 0) {
        parent_directory(checked, parent);
        checked = parent;
        check = AT_EACCESS;
    }
    *result = checked[0] != '\0' ? call_site(SYS_faccessat2, args[0], (long)checked, F_OK, check, 0) : 0;
    return *result == -ENOENT || *result == -ENOTDIR;
}

/* Recording: the call from the call site, appended with its result and its paths. */
static int record(struct hermit_buffer_header* buffer, int number, const long args[6], unsigned paths,
                  long* result) {
    size_t path_bytes = 0;
    for (int index = 0; index < 6; index++) {
        if (is_path_argument(paths, index)) {
            path_bytes += strlen((const char*)args[index]) + 1;
        }
    }
    const size_t size = hermit_buffer_entry_size(path_bytes);
    if (buffer->used + size > HERMIT_BUFFER_SIZE - sizeof(*buffer)) {
        return 0;
    }
    if (!call_or_probe(number, args, result)) {
        return 0;
    }
    struct hermit_buffer_entry* entry = (struct hermit_buffer_entry*)(entries(buffer) + buffer->used);
    entry->number = number;
    entry->size = (uint32_t)size;
    entry->result = *result;
    char* text = (char*)(entry + 1);
    for (int index = 0; index < 6; index++) {
        entry->args[index] = (uint64_t)args[index];
        if (is_path_argument(paths, index)) {
            const size_t length = strlen((const char*)args[index]) + 1;
            memcpy(text, (const char*)args[index], length);
            text += length;
        }
    }
    buffer->used += (uint32_t)size;
    buffer->done++;
    return 1;
}

/* Replaying: the result of the next placed entry, when it is this very call. */
static int replay(struct hermit_buffer_header* buffer, int number, const long args[6], unsigned paths,
                  long* result) {
    if (buffer->used >= buffer->placed) {
        return 0;
    }
    const struct hermit_buffer_entry* entry =
        (const struct hermit_buffer_entry*)(entries(buffer) + buffer->used);
    if (entry->number != number) {
        return 0;
    }
    const char* text = (const char*)(entry + 1);
    for (int index = 0; index < 6; index++) {
        if (!is_path_argument(paths, index)) {
            if (entry->args[index] != (uint64_t)args[index]) {
                return 0;
            }
            continue;
        }
        if (strcmp(text, (const char*)args[index]) != 0) {
            return 0;
        }
        text += strlen(text) + 1;
    }
    if (is_open(number) && entry->result >= 0) {
        /* A new file (hermit_buffer_creates_new_file): the replay's file in its place, at the same number. */
        const long opened = call_site(SYS_openat, AT_FDCWD, (long)text, args[2], args[3], 0);
        if (opened != entry->result) {
            if (opened >= 0) {
                syscall(SYS_close, opened);
            }
            return 0;
        }
    }
    *result = entry->result;
    buffer->used += entry->size;
    buffer->done++;
    return 1;
}

/* `dirfds` has bit i set for each argument i that is the descriptor the next argument, a path, is relative
 * to. */
static long buffered(int number, long a0, long a1, long a2, long a3, long a4, unsigned dirfds) {
    const long args[6] = {a0, a1, a2, a3, a4, 0};
    unsigned paths = hermit_buffer_path_arguments(number);
    struct hermit_buffer_header* buffer = NULL;
    int answered = 0;
    long result = 0;
    for (int index = 0; index < 6; index++) {
        if (is_path_argument(paths, index) && args[index] == 0) {
            paths = 0; /* a null path: EFAULT from the kernel */
        }
    }
    /* A path relative to a descriptor: which directory it names is the tracer's to find, at a stop. */
    for (int index = 0; index < 6; index++) {
        if (paths != 0 && is_path_argument(dirfds, index) && (int)args[index] != AT_FDCWD &&
            ((const char*)args[index + 1])[0] != '/') {
            paths = 0;
        }
    }
    if (paths != 0 && !state.busy && (buffer = thread_buffer()) != NULL) {
        state.busy = 1;
        answered = buffer->mode == HERMIT_BUFFER_RECORD ? record(buffer, number, args, paths, &result)
                                                        : replay(buffer, number, args, paths, &result);
        state.busy = 0;
    }
    if (!answered) {
        return syscall(number, a0, a1, a2, a3, a4);
    }
    return kernel_result(result);
}

#define DIRFD(index) (1u << (index))

/* Whether a call about `path` that hermit leaves to the kernel (is_stable_system_path) is made from the
 * call site, with no entry: whenever the thread has a buffer. */
static int from_call_site_about(const char* path) {
    return path != NULL && is_stable_system_path(path) && !state.busy && thread_buffer() != NULL;
}

/* An access or readlink of a stable system path, from the call site (from_call_site_about). */
static int system_access(int number, long a0, long a1, long a2, long a3, const char* path, long* result) {
    if (!from_call_site_about(path)) {
        return 0;
    }
    *result = call_site(number, a0, a1, a2, a3, 0);
    return 1;
}

EXPORT int access(const char* path, int mode) {
    long result = 0;
    if (system_access(SYS_access, (long)path, mode, 0, 0, path, &result)) {
        return (int)kernel_result(result);
    }
    return (int)buffered(SYS_access, (long)path, mode, 0, 0, 0, 0);
}

/* faccessat2(2), from the call site for a stable system path. */
static int access_with_flags(int dirfd, const char* path, int mode, int flags) {
    long result = 0;
    if (system_access(SYS_faccessat2, dirfd, (long)path, mode, flags, path, &result)) {
        return (int)kernel_result(result);
    }
    return (int)syscall(SYS_faccessat2, dirfd, path, mode, flags);
}

EXPORT int faccessat(int dirfd, const char* path, int mode, int flags) {
    if (flags != 0) {
        return access_with_flags(dirfd, path, mode, flags);
    }
    long result = 0;
    if (system_access(SYS_faccessat, dirfd, (long)path, mode, 0, path, &result)) {
        return (int)kernel_result(result);
    }
    return (int)buffered(SYS_faccessat, dirfd, (long)path, mode, 0, 0, DIRFD(0));
}

/* readlink(2), from the call site for a stable system path. */
static ssize_t link_target(int dirfd, const char* path, char* target, size_t size) {
    long result = 0;
    if (system_access(SYS_readlinkat, dirfd, (long)path, (long)target, (long)size, path, &result)) {
        return kernel_result(result);
    }
    return syscall(SYS_readlinkat, dirfd, path, target, size);
}

EXPORT ssize_t readlink(const char* path, char* target, size_t size) {
    return link_target(AT_FDCWD, path, target, size);
}

EXPORT ssize_t readlinkat(int dirfd, const char* path, char* target, size_t size) {
    return link_target(dirfd, path, target, size);
}

/* Whether what follows a component in a path being resolved needs that component to be a directory: a
 * trailing slash, or a "." or ".." after it (glibc's suffix_requires_dir_check). */
static int needs_directory(const char* rest) {
    while (*rest == '/') {
        while (*rest == '/') {
            rest++;
        }
        if (*rest == '\0') {
            return 1;
        }
        if (*rest++ != '.') {
            return 0;
        }
        if (*rest == '\0' || *rest == '/' || (*rest == '.' && (rest[1] == '\0' || rest[1] == '/'))) {
            return 1;
        }
        return 0;
    }
    return 0;
}

/* Drops the last component of the absolute `path` of `length` bytes, keeping "/" itself. */
static size_t parent_length(const char* path, size_t length) {
    while (length > 1 && path[length - 1] != '/') {
        length--;
    }
    return length > 1 ? length - 1 : 1;
}

/* A realpath that finds no file leaves in the caller's buffer the path up to the missing component, as
 * glibc's; other failures leave it alone. */
static char* failed(const char* path, char* resolved) {
    if (resolved != NULL && errno == ENOENT) {
        strcpy(resolved, path);
    }
    return NULL;
}

/* realpath(3) as glibc makes it (a readlink of each component, and where a directory is needed and the
 * component is no symlink, a faccessat2 of it with a trailing slash), those of a stable system path made
 * from the call site. A compiler resolves each header's path this way (gcc: some 450 readlinks a compile,
 * under /usr), each a stop of the tracer otherwise: glibc's own realpath makes its calls where the
 * filters trap them. */
static char* resolve(const char* name, char* resolved) {
    if (name == NULL) {
        errno = EINVAL;
        return NULL;
    }
    if (name[0] == '\0') {
        errno = ENOENT;
        return NULL;
    }
    char path[PATH_MAX]; /* resolved so far: absolute, no symlinks, no trailing slash but for "/" */
    char rest[PATH_MAX]; /* what is left of the name, symlink targets spliced in */
    char target[PATH_MAX];
    size_t length = 1;
    path[0] = '/';
    if (name[0] != '/') {
        if (getcwd(path, sizeof path) == NULL) {
            return NULL;
        }
        length = strlen(path);
    }
    if (strlen(name) >= sizeof rest) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    strcpy(rest, name);
    const char* next = rest;
    int links = 0;
    while (*next != '\0') {
        while (*next == '/') {
            next++;
        }
        const char* end = next;
        while (*end != '\0' && *end != '/') {
            end++;
        }
        const size_t component = (size_t)(end - next);
        if (component == 0 || (component == 1 && next[0] == '.')) {
            next = end;
            continue;
        }
        if (component == 2 && next[0] == '.' && next[1] == '.') {
            length = parent_length(path, length);
            next = end;
            continue;
        }
        const size_t start = length == 1 ? 1 : length + 1;
        if (start + component + 1 >= sizeof path) {
            errno = ENAMETOOLONG;
            return NULL;
        }
        path[start - 1] = '/';
        memcpy(path + start, next, component);
        length = start + component;
        path[length] = '\0';
        const ssize_t got = link_target(AT_FDCWD, path, target, sizeof target - 1);
        if (got >= 0) {
            if (++links > 40) { /* MAXSYMLINKS */
                errno = ELOOP;
                return failed(path, resolved);
            }
            const size_t tail = strlen(end);
            if ((size_t)got + tail >= sizeof rest) {
                errno = ENAMETOOLONG;
                return NULL;
            }
            memmove(rest + got, end, tail + 1);
            memcpy(rest, target, (size_t)got);
            next = rest;
            length = target[0] == '/' ? 1 : parent_length(path, length);
            continue;
        }
        if (needs_directory(end)) {
            path[length] = '/';
            path[length + 1] = '\0';
            const int directory = access_with_flags(AT_FDCWD, path, F_OK, AT_EACCESS) == 0;
            path[length] = '\0';
            if (!directory) {
                return failed(path, resolved);
            }
        } else if (errno != EINVAL) {
            return failed(path, resolved);
        }
        next = end;
    }
    path[length] = '\0';
    return resolved != NULL ? strcpy(resolved, path) : strdup(path);
}

EXPORT char* realpath(const char* name, char* resolved) {
    return resolve(name, resolved);
}

EXPORT char* canonicalize_file_name(const char* name) {
    return resolve(name, NULL);
}

/* _FORTIFY_SOURCE's form: the caller's buffer must hold PATH_MAX bytes (glibc's, which aborts). */
extern void __chk_fail(void) __attribute__((noreturn));

EXPORT char* __realpath_chk(const char* name, char* resolved, size_t resolved_length) {
    if (resolved_length < PATH_MAX) {
        __chk_fail();
    }
    return resolve(name, resolved);
}

EXPORT int unlink(const char* path) {
    return (int)buffered(SYS_unlink, (long)path, 0, 0, 0, 0, 0);
}

EXPORT int unlinkat(int dirfd, const char* path, int flags) {
    return (int)buffered(SYS_unlinkat, dirfd, (long)path, flags, 0, 0, DIRFD(0));
}

EXPORT int link(const char* from, const char* to) {
    return (int)buffered(SYS_link, (long)from, (long)to, 0, 0, 0, 0);
}

EXPORT int linkat(int from_dirfd, const char* from, int to_dirfd, const char* to, int flags) {
    return (int)buffered(SYS_linkat, from_dirfd, (long)from, to_dirfd, (long)to, flags, DIRFD(0) | DIRFD(2));
}

EXPORT int mkdir(const char* path, mode_t mode) {
    return (int)buffered(SYS_mkdir, (long)path, mode, 0, 0, 0, 0);
}

EXPORT int mkdirat(int dirfd, const char* path, mode_t mode) {
    return (int)buffered(SYS_mkdirat, dirfd, (long)path, mode, 0, 0, DIRFD(0));
}

static int creates(int flags) {
    return (flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE;
}

/* Whether an open only reads what a stable system path names, a regular file or a directory (no FIFO or
 * device, whose descriptor the tracer would trap), and is made from the call site (from_call_site_about).
 * The check's stat is made there too: the guest's errno stays. */
static int reads_system_file(const char* path, int flags) {
    if ((flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC)) != 0 ||
        !from_call_site_about(path)) {
        return 0;
    }
    struct stat info;
    const long follow = (flags & O_NOFOLLOW) != 0 ? AT_SYMLINK_NOFOLLOW : 0;
    return call_site(SYS_newfstatat, AT_FDCWD, (long)path, (long)&info, follow, 0) == 0 &&
           (S_ISREG(info.st_mode) || S_ISDIR(info.st_mode));
}

/* An open of a path that no virtual file of hermit's may stand for (HERMIT_PROCESS_DIRECTORIES), but not of
 * an unnamed file (O_TMPFILE): one that reads a system file is made from the call site without an entry,
 * as the tracer would leave it to the kernel (the recorder copies no system file); one that finds no
 * file, or makes a new one, is answered by the library (call_or_probe). */
static int open_at(int dirfd, const char* path, int flags, mode_t mode) {
    static const char* const process_directories[] = HERMIT_PROCESS_DIRECTORIES;
    if (path == NULL || (flags & O_TMPFILE) == O_TMPFILE ||
        under_one_of(path, process_directories,
                     sizeof(process_directories) / sizeof(process_directories[0]))) {
        return (int)syscall(SYS_openat, dirfd, path, flags, mode);
    }
    if (reads_system_file(path, flags)) {
        return (int)kernel_result(call_site(SYS_openat, dirfd, (long)path, flags, mode, 0));
    }
    return (int)buffered(SYS_openat, dirfd, (long)path, flags, mode, 0, DIRFD(0));
}

/* The mode argument, which open and openat take only to create a file. */
#define CREATION_MODE(flags, last)                                                                           \
    mode_t mode = 0;                                                                                         \
    if (creates(flags)) {                                                                                    \
        va_list arguments;                                                                                   \
        va_start(arguments, last);                                                                           \
        mode = va_arg(arguments, mode_t);                                                                    \
        va_end(arguments);                                                                                   \
    }

EXPORT int open(const char* path, int flags, ...) {
    CREATION_MODE(flags, flags);
    return open_at(AT_FDCWD, path, flags, mode);
}

EXPORT int open64(const char* path, int flags, ...) {
    CREATION_MODE(flags, flags);
    return open_at(AT_FDCWD, path, flags, mode);
}

EXPORT int openat(int dirfd, const char* path, int flags, ...) {
    CREATION_MODE(flags, flags);
    return open_at(dirfd, path, flags, mode);
}

EXPORT int openat64(int dirfd, const char* path, int flags, ...) {
    CREATION_MODE(flags, flags);
    return open_at(dirfd, path, flags, mode);
}

/* _FORTIFY_SOURCE's forms, which take no mode. */
EXPORT int __open_2(const char* path, int flags) {
    return open_at(AT_FDCWD, path, flags, 0);
}

EXPORT int __open64_2(const char* path, int flags) {
    return open_at(AT_FDCWD, path, flags, 0);
}

EXPORT int __openat_2(int dirfd, const char* path, int flags) {
    return open_at(dirfd, path, flags, 0);
}

EXPORT int __openat64_2(int dirfd, const char* path, int flags) {
    return open_at(dirfd, path, flags, 0);
}

EXPORT int rename(const char* from, const char* to) {
    return (int)buffered(SYS_rename, (long)from, (long)to, 0, 0, 0, 0);
}

EXPORT int renameat(int from_dirfd, const char* from, int to_dirfd, const char* to) {
    return (int)buffered(SYS_renameat, from_dirfd, (long)from, to_dirfd, (long)to, 0, DIRFD(0) | DIRFD(2));
}
