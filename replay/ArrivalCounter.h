#pragma once
// ArrivalCounter: how many times the threads of one process arrive at one instruction (are about to
// execute it), counted by the kernel with a hardware execute breakpoint per thread (a perf event of type
// PERF_TYPE_BREAKPOINT: the debug registers, not the PMU, so it works where no performance counter does).
// An arrival costs a debug exception handled in the kernel (a few microseconds), not a ptrace stop, which
// is what lets a replay without an instruction counter name and reach "the millionth time through this
// loop" in seconds.
//
// With a limit, the thread that makes the limit-th arrival stops there before executing the instruction:
// the kernel sends it SIGTRAP with si_code TRAP_PERF (attr.sigtrap), which the tracer sees first. One
// thread runs at a time, so each thread's event is opened, before it runs, to overflow at what is left.

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>

namespace hermit::replay {

// si_code of the SIGTRAP a perf event with attr.sigtrap sends (older libc headers lack it).
constexpr int kTrapPerf = 6;

class ArrivalCounter {
public:
    // Whether this host can count arrivals (probed once per process on a child of its own).
    static bool available();

    ArrivalCounter(uint64_t address, std::optional<uint64_t> limit);
    ~ArrivalCounter();
    ArrivalCounter(const ArrivalCounter&) = delete;
    ArrivalCounter& operator=(const ArrivalCounter&) = delete;

    // The thread `host_tid` stands at the address at a stop and has not executed it yet, and eflags.RF is
    // clear: resumed, its breakpoint fires before the instruction runs, which is not an arrival.
    void discount_next_fire(pid_t host_tid);
    // `host_tid` is about to run: its event is opened anew, to stop it at the limit. False when the kernel
    // refuses the event (no debug register left).
    bool prepare(pid_t host_tid);
    uint64_t arrivals() const;
    uint64_t address() const { return address_; }

private:
    uint64_t address_;
    std::optional<uint64_t> limit_;
    int64_t closed_count_ = 0;    // arrivals on events already closed, less the discounted fires
    std::map<pid_t, int> events_; // host tid -> open perf event
    pid_t discounted_ = 0;        // the thread whose next fire is not an arrival
};

} // namespace hermit::replay
