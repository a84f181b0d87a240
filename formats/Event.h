#pragma once
// hermit::Event: the in-memory form of one entry of the event vocabulary (formats/schema/recording.capnp).
// The tracer emits these, the recorder writes them, and the replayer, --verify, analyze, the GUI and the
// exporters read them back. Field meanings are documented in the schema.

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace hermit {

struct ScheduleEvent {
    enum class Reason { Yield, Blocked, Exited, Preempted, Started };
    int32_t previous_tid = 0;
    Reason reason = Reason::Yield;
    bool operator==(const ScheduleEvent&) const = default;
};

struct MemoryWrite {
    uint64_t address = 0;
    std::vector<uint8_t> data;
    bool operator==(const MemoryWrite&) const = default;
};

struct SyscallEvent {
    // The result of a syscall the thread did not run yet because it would have waited: it re-executes it
    // when it next gets the run token. -ERESTARTNOINTR, a kernel-internal errno no guest ever sees.
    static constexpr int64_t kRetried = -513;

    int32_t number = 0;
    std::vector<uint64_t> args;
    int64_t result = 0;
    bool emulated = false;
    std::vector<MemoryWrite> memory_writes;
    // Made in the guest's syscall buffer, without a stop (tracer/SyscallBuffer.h), with its path arguments
    // in order: a replay has no stop at which to read them from the guest.
    bool buffered = false;
    std::vector<std::string> paths;
    bool operator==(const SyscallEvent&) const = default;
};

struct SignalEvent {
    int32_t number = 0;
    int32_t code = 0;
    int32_t sender_pid = 0;
    bool fatal = false;
    // Sent from outside the guest (kill from another process): the Session delivers it at the receiving
    // thread's next trapped syscall entry, and a replay sends it again at that event.
    bool outside = false;
    int32_t sender_uid = 0; // kept for signals from outside
    bool operator==(const SignalEvent&) const = default;
};

struct ThreadStartEvent {
    int32_t parent_tid = 0;
    bool new_process = false;
    bool operator==(const ThreadStartEvent&) const = default;
};

struct ThreadExitEvent {
    int32_t status = 0;
    bool process_exit = false;
    bool operator==(const ThreadExitEvent&) const = default;
};

struct ExecEvent {
    std::string path;
    std::vector<std::string> argv;
    std::string sha256;
    bool operator==(const ExecEvent&) const = default;
};

struct RdtscEvent {
    uint64_t value = 0;
    bool with_processor_id = false;
    bool operator==(const RdtscEvent&) const = default;
};

struct CpuidEvent {
    uint32_t leaf = 0, subleaf = 0;
    uint32_t eax = 0, ebx = 0, ecx = 0, edx = 0;
    bool operator==(const CpuidEvent&) const = default;
};

struct StdioEvent {
    int32_t fd = 1;
    std::vector<uint8_t> data;
    bool operator==(const StdioEvent&) const = default;
};

using EventPayload = std::variant<ScheduleEvent, SyscallEvent, SignalEvent, ThreadStartEvent, ThreadExitEvent,
                                  ExecEvent, RdtscEvent, CpuidEvent, StdioEvent>;

struct Event {
    uint64_t time = 0; // logical ns since the run's epoch
    int32_t tid = 0;   // guest-visible ids
    int32_t pid = 0;
    EventPayload payload;
    bool operator==(const Event&) const = default;
};

// "yield", "blocked", "exited", "preempted", "started".
const char* schedule_reason_name(ScheduleEvent::Reason reason);

// "schedule", "syscall", ... as used in filters, JSON and the GUI.
const char* event_kind_name(const EventPayload& payload);

} // namespace hermit
