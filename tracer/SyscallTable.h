#pragma once
// SyscallTable: one row per x86_64 system call (number, name, argument kinds, result kind, determinism
// policy). The rows are data (SyscallTableData.cc, generated once from asm/unistd_64.h and then edited by
// hand): the strace printer, the seccomp filter, the recorder and the replayer all read the same row
// instead of each keeping its own switch over syscall numbers.

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace hermit::tracer {

// How one argument is interpreted. Kinds up to (not including) the first output kind are read by the
// kernel; output kinds name memory the kernel writes into the guest and are printed at syscall exit.
// `ArgSpec::size_arg` names the argument holding a size or a count where the kind needs one.
enum class ArgKind : uint8_t {
    // Scalars.
    Int,          // int, printed signed (32 bits)
    Long,         // off_t and other 64-bit signed values
    Unsigned,     // size_t and other unsigned values
    Hex,          // unknown or opaque: printed 0x...
    Octal,        // modes and access masks
    Fd,           // file descriptor
    DirFd,        // file descriptor or AT_FDCWD
    Pointer,      // an address the formatter does not follow: NULL or 0x...
    OpenFlags,    // O_RDONLY|O_CLOEXEC...
    OpenMode,     // mode after open flags; printed only when the flags contain O_CREAT or O_TMPFILE
    StatusFlags,  // O_CLOEXEC|O_NONBLOCK without an access mode (pipe2, dup3)
    AtFlags,      // AT_SYMLINK_NOFOLLOW|AT_EMPTY_PATH...
    AccessMode,   // F_OK or R_OK|W_OK|X_OK
    MmapProt,     // PROT_READ|PROT_WRITE...
    MmapFlags,    // MAP_PRIVATE|MAP_ANONYMOUS...
    CloneFlags,   // CLONE_VM|...|SIGCHLD
    Signal,       // SIGINT
    ClockId,      // CLOCK_MONOTONIC
    FutexOp,      // FUTEX_WAIT_PRIVATE
    FcntlCmd,     // F_GETFL
    SeekWhence,   // SEEK_SET
    SigmaskHow,   // SIG_BLOCK
    IoctlRequest, // TCGETS
    // Memory the kernel reads.
    String,      // NUL-terminated path or name, printed whole
    StringArray, // argv: ["ls", "-l"]
    EnvArray,    // envp: printed as its address and the number of entries
    InBuffer,    // bytes, size from size_arg
    TimespecIn,
    SigsetIn,    // signal set, size from size_arg
    SigactionIn, // struct kernel_sigaction
    IovecIn,     // iovec array, count from size_arg
    PollFds,     // struct pollfd array, count from size_arg; the kernel also writes revents
    // Memory the kernel writes (outputs).
    OutBuffer,      // bytes; capacity from size_arg, the result says how many were written
    DirentsOut,     // linux_dirent(64) records; capacity from size_arg, result bytes written
    IovecOut,       // iovec array, count from size_arg; result bytes scattered over it
    MsghdrOut,      // struct msghdr of recvmsg: name, iovecs and control are written
    StatOut,        // struct stat, 144 bytes
    StatxOut,       // struct statx, 256 bytes
    StatfsOut,      // struct statfs, 120 bytes
    TimespecOut,    // 16 bytes
    TimevalOut,     // 16 bytes
    TimezoneOut,    // 8 bytes
    TimeOut,        // time_t, 8 bytes
    ItimervalOut,   // 32 bytes
    ItimerspecOut,  // 32 bytes
    IntOut,         // int, 4 bytes
    UnsignedOut,    // unsigned int, 4 bytes
    WaitStatusOut,  // int wait status, 4 bytes
    FdPairOut,      // int[2], 8 bytes
    UtsnameOut,     // struct utsname, 390 bytes
    SysinfoOut,     // struct sysinfo, 112 bytes
    RusageOut,      // struct rusage, 144 bytes
    TmsOut,         // struct tms, 32 bytes
    RlimitOut,      // struct rlimit, 16 bytes
    SiginfoOut,     // siginfo_t, 128 bytes
    SigsetOut,      // signal set, size from size_arg
    SigactionOut,   // struct kernel_sigaction with a mask of size_arg bytes
    GroupsOut,      // gid_t array, result entries
    CpuSetOut,      // cpu mask, result bytes
    EpollEventsOut, // struct epoll_event (12 bytes) array, result entries
    FdSetInOut,     // fd_set, size from nfds in size_arg
    SockaddrOut,    // socket address, length from the socklen_t the kernel writes at size_arg
    SockoptOut,     // socket option value, length from the socklen_t the kernel writes at size_arg
    SocklenInOut,   // socklen_t the kernel reads and rewrites, 4 bytes
    IoctlArg,       // depends on the request in argument 1 (TCGETS, FIONREAD, TIOCGWINSZ...)
};

constexpr bool is_output(ArgKind kind) {
    return kind >= ArgKind::OutBuffer;
}

struct ArgSpec {
    ArgKind kind = ArgKind::Hex;
    int8_t size_arg = -1;
};

enum class ResultKind : uint8_t {
    Decimal,  // a count, an fd, an id
    Address,  // mmap, brk: printed 0x...
    NoReturn, // exit, exit_group, rt_sigreturn: the caller never sees a result
};

// Why a syscall may make a run differ from another run of the same program. A set of flags: Pure (no
// flag) means the result depends only on guest state while one guest thread runs.
enum class Determinism : uint16_t {
    Pure = 0,
    Scheduling = 1 << 0,   // creates, ends, wakes or signals threads: a scheduling point
    Blocking = 1 << 1,     // may wait for another thread, process or the outside world
    TimeSource = 1 << 2,   // reads a clock or reports elapsed time
    RandomSource = 1 << 3, // returns random bytes
    HostFacts = 1 << 4,    // describes the host (kernel, cpus, limits, free memory)
    FileMetadata = 1 << 5, // file times, inode numbers, directory order
};

constexpr Determinism operator|(Determinism a, Determinism b) {
    return static_cast<Determinism>(static_cast<uint16_t>(a) | static_cast<uint16_t>(b));
}
constexpr bool has(Determinism set, Determinism flag) {
    return (static_cast<uint16_t>(set) & static_cast<uint16_t>(flag)) != 0;
}

struct SyscallRow {
    int number = 0;
    std::string_view name;
    uint8_t arg_count = 0;
    std::array<ArgSpec, 6> args{};
    ResultKind result = ResultKind::Decimal;
    Determinism determinism = Determinism::Pure;
};

// Every known syscall, ascending by number (numbers that x86_64 never assigned have no row).
std::span<const SyscallRow> syscall_table();
// nullptr when the number or name is unknown.
const SyscallRow* find_syscall(int number);
const SyscallRow* find_syscall(std::string_view name);

// The argument that holds the path of a call that opens or executes a file or changes the working
// directory: 0 for those relative to the working directory (open, creat, execve, chdir), 1 after the
// directory descriptor (openat, openat2, execveat).
size_t path_argument(int number);
// The argument that holds the flags of open or openat, right after the path (their mode follows).
size_t open_flags_argument(int number);

class GuestMemory;

// Guest memory the kernel wrote during one completed syscall.
struct OutputRange {
    uint64_t address = 0;
    uint64_t length = 0;
    bool operator==(const OutputRange&) const = default;
};

// The memory a syscall wrote, computed at its exit from the arguments and the raw result (nothing for a
// failed call). This overload cannot follow pointers, so it leaves out what is only known from guest
// memory: iovec targets (readv, preadv, recvmsg) and socket addresses and options whose length the
// kernel stores in a socklen_t.
std::vector<OutputRange> syscall_outputs(const SyscallRow& row, const std::array<uint64_t, 6>& args,
                                         int64_t result);
// The complete list: also reads iovec arrays, msghdr and socklen_t values from `memory`.
std::vector<OutputRange> syscall_outputs(const SyscallRow& row, const std::array<uint64_t, 6>& args,
                                         int64_t result, GuestMemory& memory);

} // namespace hermit::tracer
