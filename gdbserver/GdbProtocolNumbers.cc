#include "GdbProtocolNumbers.h"

#include <fcntl.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <utility>

namespace hermit::gdbserver {

namespace {

// gdb's own signal numbers (include/gdb/signals.def), which differ from Linux from SIGBUS on.
constexpr int kGdbSignalUnknown = 143;
constexpr int kGdbSignalRealtime32 = 77;
constexpr int kGdbSignalRealtime33 = 45;

constexpr std::array<std::pair<int, int>, 31> kHostToGdb = {{
    {SIGHUP, 1},
    {SIGINT, 2},
    {SIGQUIT, 3},
    {SIGILL, 4},
    {SIGTRAP, 5},
    {SIGABRT, 6},
    {SIGBUS, 10},
    {SIGFPE, 8},
    {SIGKILL, 9},
    {SIGUSR1, 30},
    {SIGSEGV, 11},
    {SIGUSR2, 31},
    {SIGPIPE, 13},
    {SIGALRM, 14},
    {SIGTERM, 15},
    {SIGCHLD, 20},
    {SIGCONT, 19},
    {SIGSTOP, 17},
    {SIGTSTP, 18},
    {SIGTTIN, 21},
    {SIGTTOU, 22},
    {SIGURG, 16},
    {SIGXCPU, 24},
    {SIGXFSZ, 25},
    {SIGVTALRM, 26},
    {SIGPROF, 27},
    {SIGWINCH, 28},
    {SIGIO, 23},
    {SIGPWR, 32},
    {SIGSYS, 12},
    {SIGSTKFLT, kGdbSignalUnknown},
}};

// Linux real-time signals are 32..64; gdb numbers 33..63 consecutively from 45 and 32 separately.
constexpr int kFirstRealtime = 32;
constexpr int kLastMappedRealtime = 63;

} // namespace

int gdb_signal_from_host(int host_signal) {
    if (host_signal == 0) {
        return 0;
    }
    for (auto [host, gdb] : kHostToGdb) {
        if (host == host_signal) {
            return gdb;
        }
    }
    if (host_signal == kFirstRealtime) {
        return kGdbSignalRealtime32;
    }
    if (host_signal > kFirstRealtime && host_signal <= kLastMappedRealtime) {
        return kGdbSignalRealtime33 + (host_signal - (kFirstRealtime + 1));
    }
    return kGdbSignalUnknown;
}

int host_signal_from_gdb(int gdb_signal) {
    if (gdb_signal == 0 || gdb_signal == kGdbSignalUnknown) {
        return 0;
    }
    for (auto [host, gdb] : kHostToGdb) {
        if (gdb == gdb_signal) {
            return host;
        }
    }
    if (gdb_signal == kGdbSignalRealtime32) {
        return kFirstRealtime;
    }
    int last_gdb_realtime = kGdbSignalRealtime33 + (kLastMappedRealtime - (kFirstRealtime + 1));
    if (gdb_signal >= kGdbSignalRealtime33 && gdb_signal <= last_gdb_realtime) {
        return kFirstRealtime + 1 + (gdb_signal - kGdbSignalRealtime33);
    }
    return 0;
}

int host_open_flags_from_gdb(int gdb_flags) {
    // File-I/O flags (gdb manual, "Open Flags"); the access mode bits 0-1 coincide with Linux.
    constexpr int kGdbAppend = 0x8;
    constexpr int kGdbCreate = 0x200;
    constexpr int kGdbTruncate = 0x400;
    constexpr int kGdbExclusive = 0x800;
    int flags = gdb_flags & O_ACCMODE;
    if (gdb_flags & kGdbAppend) {
        flags |= O_APPEND;
    }
    if (gdb_flags & kGdbCreate) {
        flags |= O_CREAT;
    }
    if (gdb_flags & kGdbTruncate) {
        flags |= O_TRUNC;
    }
    if (gdb_flags & kGdbExclusive) {
        flags |= O_EXCL;
    }
    return flags;
}

int gdb_errno_from_host(int host_errno) {
    // File-I/O errno values (gdb manual, "Errno Values") equal Linux's except ENAMETOOLONG.
    constexpr int kGdbNameTooLong = 91;
    constexpr int kGdbUnknown = 9999;
    switch (host_errno) {
    case EPERM:
    case ENOENT:
    case EINTR:
    case EBADF:
    case EACCES:
    case EFAULT:
    case EBUSY:
    case EEXIST:
    case ENODEV:
    case ENOTDIR:
    case EISDIR:
    case EINVAL:
    case ENFILE:
    case EMFILE:
    case EFBIG:
    case ENOSPC:
    case ESPIPE:
    case EROFS:
        return host_errno;
    case ENAMETOOLONG:
        return kGdbNameTooLong;
    default:
        return kGdbUnknown;
    }
}

} // namespace hermit::gdbserver
