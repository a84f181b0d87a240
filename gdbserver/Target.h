#pragma once
// Target: what gdb debugs, seen through the remote protocol. The base interface is what every target
// must do (threads, registers, memory, resume, kill, detach); everything else is an optional capability
// reached through an accessor that returns nullptr when the target lacks it. GdbServer advertises in
// qSupported only the capabilities that exist and gives the empty reply ("unsupported") to the packets of
// the missing ones, so a target cannot half-support a feature by forgetting a check.
//
// Capability methods are named apart from the accessors so one class can implement several of them.
//
// Threading: GdbServer calls a Target from one thread only. resume() blocks until the target stops; to
// let gdb interrupt it, resume() receives an InterruptCheck to poll (it never blocks and reads gdb's
// socket); the target must poll it at every point where it could stop (each event it processes) and, when
// it returns true, stop all threads and return a Signal stop with SIGINT. Polling was chosen over an
// interrupt() callable from another thread so targets need no locking and stops stay deterministic.
//
// Registers are exchanged in gdb's amd64 layout (Amd64Registers.h): little-endian values concatenated
// in register-number order. Signal numbers are host (Linux) numbers; GdbServer translates them.

#include "ThreadId.h"

#include <sys/stat.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hermit::gdbserver {

using InterruptCheck = std::function<bool()>;

enum class ResumeKind { Continue, Step };

// One vCont action: resume the threads matching `threads` (a pattern) with `kind`, delivering host
// signal `signal` if nonzero.
struct ThreadResume {
    ThreadId threads;
    ResumeKind kind = ResumeKind::Continue;
    int signal = 0;
};

// vCont semantics in all-stop mode: each thread takes the first action whose pattern matches it; threads
// matching no action stay stopped. When any thread stops, the whole target stops.
struct ResumeRequest {
    std::vector<ThreadResume> actions;

    // The action that applies to `thread`, or nullptr when it stays stopped.
    const ThreadResume* action_for(const ThreadId& thread) const;
};

enum class WatchKind { Write, Read, Access };
enum class BreakpointKind { Software, Hardware };

struct StopReason {
    enum class Kind {
        Signal,             // stopped by host signal `signal` (SIGTRAP after a step, SIGINT on interrupt)
        SoftwareBreakpoint, // hit a Z0 breakpoint; reported as SIGTRAP
        HardwareBreakpoint, // hit a Z1 breakpoint; reported as SIGTRAP
        Watchpoint,         // `watch_kind` access to `watch_address`; reported as SIGTRAP
        Exited,             // the process exited with `exit_code`
        Terminated,         // the process was killed by host signal `signal`
        NoHistory,          // reverse or replayed execution reached the `history_end` of the recording
        Exec,               // the thread's process now runs the program at `exec_path`; reported as SIGTRAP
    };
    enum class HistoryEnd { Begin, End };

    Kind kind = Kind::Signal;
    ThreadId thread; // the thread that stopped (or the process, for Exited/Terminated)
    int signal = 0;
    uint64_t watch_address = 0;
    WatchKind watch_kind = WatchKind::Write;
    int exit_code = 0;
    HistoryEnd history_end = HistoryEnd::Begin;
    std::string exec_path{};
};

// Z0/z0 software and Z1/z1 hardware breakpoints. A target that does not patch memory (a replay) may
// treat both kinds alike. `kind` is gdb's breakpoint kind (1 for x86 int3).
class Breakpoints {
public:
    virtual ~Breakpoints() = default;
    virtual bool insert_breakpoint(BreakpointKind type, uint64_t address, int kind) = 0;
    virtual bool remove_breakpoint(BreakpointKind type, uint64_t address, int kind) = 0;
};

// Z2/Z3/Z4 watchpoints of `length` bytes at `address`.
class Watchpoints {
public:
    virtual ~Watchpoints() = default;
    virtual bool insert_watchpoint(WatchKind kind, uint64_t address, uint64_t length) = 0;
    virtual bool remove_watchpoint(WatchKind kind, uint64_t address, uint64_t length) = 0;
};

// bc/bs: run backwards. `thread` is the thread gdb selected for resuming. Reaching the start of history
// is a NoHistory stop with HistoryEnd::Begin.
class ReverseExecution {
public:
    virtual ~ReverseExecution() = default;
    virtual StopReason reverse_resume(ResumeKind kind, const ThreadId& thread,
                                      const InterruptCheck& interrupted) = 0;
};

// qXfer:auxv:read: the raw auxiliary vector of the process.
class Auxv {
public:
    virtual ~Auxv() = default;
    virtual std::vector<uint8_t> read_auxv() = 0;
};

// qXfer:exec-file:read: the absolute path of the executable of process `pid` (kAny: the current one).
class ExecFile {
public:
    virtual ~ExecFile() = default;
    virtual std::string exec_file_path(int64_t pid) = 0;
};

// exec-events: once gdb said it understands them, the target reports each exec of the debugged process
// as an Exec stop (gdb then loads the new program); until then it reports none.
class ExecEvents {
public:
    virtual ~ExecEvents() = default;
    virtual void report_execs(bool enabled) = 0;
};

// qXfer:libraries-svr4:read: the <library-list-svr4> XML document describing the loaded libraries.
class Libraries {
public:
    virtual ~Libraries() = default;
    virtual std::string libraries_svr4_xml() = 0;
};

// The result of a host I/O call: `value` >= 0 on success; on failure value is -1 and `error` an errno.
struct HostIoResult {
    int64_t value = -1;
    int error = 0;
};

// The file-system view gdb reads executables and libraries through (vFile:*). Flags and errno values
// are host (Linux) values; GdbServer translates gdb's protocol values. LocalFileHostIo implements it
// read-only over the host's files.
class HostIo {
public:
    virtual ~HostIo() = default;
    virtual HostIoResult open(const std::string& path, int flags, uint32_t mode) = 0;
    // Reads up to `count` bytes at `offset` into `data`; value is the number of bytes read.
    virtual HostIoResult pread(int fd, size_t count, uint64_t offset, std::vector<uint8_t>& data) = 0;
    virtual HostIoResult close(int fd) = 0;
    // value is the file size; `stat_buffer` must be filled with the file's stat.
    virtual HostIoResult fstat(int fd, struct ::stat& stat_buffer) = 0;
    // Selects the file-system namespace of process `pid` (0: the server's own) for later opens.
    virtual HostIoResult setfs(int64_t pid) = 0;
};

// qGetTLSAddr: the address of the thread-local variable at `offset` in the TLS block of the module whose
// link_map is at `link_map`, for `thread`; nullopt when it cannot be told.
class ThreadLocalStorage {
public:
    virtual ~ThreadLocalStorage() = default;
    virtual std::optional<uint64_t> thread_local_address(const ThreadId& thread, uint64_t offset,
                                                         uint64_t link_map) = 0;
};

// qRcmd ("monitor <command>" in gdb): returns the text to print.
class MonitorCommands {
public:
    virtual ~MonitorCommands() = default;
    virtual std::string run_monitor_command(std::string_view command) = 0;
};

// Multiprocess thread ids (pPID.TID) and qAttached.
class Processes {
public:
    virtual ~Processes() = default;
    // Whether gdb attached to an existing process (true: detach on quit) or the target created it.
    virtual bool attached(int64_t pid) = 0;
};

// Extended-remote mode (`!`): gdb's `run` starts the program over (vRun), and a `kill` leaves the server
// waiting for the next `run` or for gdb to go.
class StartOver {
public:
    virtual ~StartOver() = default;
    // Starts the program again from its beginning, stopped there (what runs now is killed first); nullopt
    // when it cannot.
    virtual std::optional<StopReason> restart_program() = 0;
};

class Target {
public:
    virtual ~Target() = default;

    // All live threads; the first is the default thread gdb selects (normally the one that stopped).
    // Never empty while a process lives.
    virtual std::vector<ThreadId> threads() = 0;
    // Why the target is stopped now: the answer to `?` when gdb connects.
    virtual StopReason stop_reason() = 0;
    // Name or state shown by `info threads` (qThreadExtraInfo); empty shows nothing.
    virtual std::string thread_extra_info(const ThreadId&) { return {}; }

    // All registers of `thread` in the amd64 `g` layout (amd64::register_file_size() bytes).
    virtual std::vector<uint8_t> read_registers(const ThreadId& thread) = 0;
    virtual bool write_registers(const ThreadId& thread, std::span<const uint8_t> bytes) = 0;
    // One register; by default sliced out of read_registers / patched into write_registers.
    virtual std::optional<std::vector<uint8_t>> read_register(const ThreadId& thread, int regno);
    virtual bool write_register(const ThreadId& thread, int regno, std::span<const uint8_t> bytes);

    // Reads up to out.size() bytes at `address`; returns how many could be read (0: none, an error).
    virtual size_t read_memory(uint64_t address, std::span<uint8_t> out) = 0;
    // Writes all of `bytes` or nothing.
    virtual bool write_memory(uint64_t address, std::span<const uint8_t> bytes) = 0;

    // Runs until a stop (see the threading note above).
    virtual StopReason resume(const ResumeRequest& request, const InterruptCheck& interrupted) = 0;
    virtual void kill() = 0;
    virtual void detach() = 0;

    virtual Breakpoints* breakpoints() { return nullptr; }
    virtual Watchpoints* watchpoints() { return nullptr; }
    virtual ReverseExecution* reverse() { return nullptr; }
    virtual Auxv* auxv() { return nullptr; }
    virtual ExecFile* exec_file() { return nullptr; }
    virtual ExecEvents* exec_events() { return nullptr; }
    virtual Libraries* libraries() { return nullptr; }
    virtual HostIo* host_io() { return nullptr; }
    virtual MonitorCommands* monitor() { return nullptr; }
    virtual ThreadLocalStorage* thread_local_storage() { return nullptr; }
    virtual Processes* processes() { return nullptr; }
    virtual StartOver* start_over() { return nullptr; }
};

} // namespace hermit::gdbserver
