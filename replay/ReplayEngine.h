#pragma once
// ReplayEngine: the forward-only side of debugging a replay (rr's ReplaySession to the ReplayTimeline).
// It runs one deterministic replay of a recording, can only move it forward one debugger stop at a time,
// and can start it over from the beginning. Where to go, and how to get back in time, is the
// ReplayTimeline's business.

#include "gdbserver/Target.h"

#include <cstdint>
#include <optional>
#include <set>
#include <vector>

namespace hermit::replay {

// How far a forward run goes: to the next armed stop, one instruction of the stopped thread (gdb's
// stepi: other threads may run meanwhile when it gives up the run token), or one instruction of
// whichever thread runs (the timeline's unit of progress).
enum class Motion { Continue, Step, StepAnyThread };

struct WatchRange {
    gdbserver::WatchKind kind = gdbserver::WatchKind::Write;
    uint64_t address = 0;
    uint64_t length = 0;
    bool operator==(const WatchRange&) const = default;
};

// What stops a forward run for the debugger: breakpoint addresses, watched ranges and, for going to a
// recorded event (`hermit replay --goto-event`), the first trapped syscall at or after event `event`
// (the stop is right after that syscall, in user code).
struct StopSet {
    std::set<uint64_t> breakpoints;
    std::vector<WatchRange> watches;
    std::optional<uint64_t> event;
    bool operator==(const StopSet&) const = default;
};

// A stop of the forward run: its reason and the program counter of the stopped thread (for a breakpoint,
// the breakpoint's address). A signal the guest receives, an exec (when gdb takes exec events) and the end
// of the debugged process are stops whatever is armed: gdb sees the crash where it happens, and the end as
// SIGKILL with the process still there, as rr shows it, so that reverse execution can start from either.
struct EngineStop {
    gdbserver::StopReason reason;
    uint64_t pc = 0;
    bool at_event = false; // the stop for StopSet::event
    bool at_exit = false;  // the debugged process ends here
    // Stopped where gdb's Ctrl-C found the guest: without an instruction counter, no replay can name
    // this position again.
    bool interrupted = false;
    // The limit of count_arrivals() reached: the thread is about to execute the counted instruction.
    bool counted_arrival = false;
    // The debugged process has just executed a new program (an Exec stop). Going backwards, its history
    // begins here: gdb knows only the new program.
    bool at_exec = false;

    bool ended() const;
    // Whether a forward run with `stops` armed would have stopped here: a hit of one of its breakpoints or
    // watchpoints, a single step that landed on one of its breakpoints, a guest signal or the exit.
    bool belongs_to(const StopSet& stops) const;
};

class ReplayEngine {
public:
    virtual ~ReplayEngine() = default;
    // Kills the current run and starts the replay again, stopped at its first stop (the program's entry
    // point) with the same stops armed; returns that stop. Throws E062 when the replay ends before it.
    virtual EngineStop restart() = 0;
    virtual StopSet armed_stops() = 0;
    virtual void arm(const StopSet& stops) = 0;
    // Runs forward to the next stop (see Motion); a breakpoint at the current pc does not stop it again.
    // When `interrupted` returns true (gdb's Ctrl-C, or gdb gone) the guest stops where it is.
    virtual EngineStop run_forward(Motion motion, const gdbserver::InterruptCheck& interrupted) = 0;
    // From now on, counts the debugged process's arrivals at the instruction at `address` without stopping
    // at them (ArrivalCounter.h), except at the `limit`-th when given: that stop is `counted_arrival`.
    // False when the host cannot count; nothing is counted then.
    virtual bool count_arrivals(uint64_t address, std::optional<uint64_t> limit) = 0;
    // The arrivals counted since count_arrivals().
    virtual uint64_t counted_arrivals() = 0;
    virtual void stop_counting() = 0;
    // Keeps an image of the debugged process at this stop (ProcessImage.h) in place of the one kept before;
    // false when none can be taken (it has more than one thread).
    virtual bool keep_image() = 0;
    // Goes back to the kept image, which is only possible while the replay has passed no event since it was
    // taken and the kernel's state of the process is the same (no untrapped syscall changed it); false
    // otherwise, and nothing changed.
    virtual bool restore_image() = 0;
};

} // namespace hermit::replay
