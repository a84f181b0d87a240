#pragma once
// ContextSwitchAlarm: tells the tracer at once when the guest thread holding the run token leaves its CPU,
// so a holder that went to sleep in the kernel (a read of an empty pipe, a write to a full one) is found
// when it sleeps instead of by looking at /proc after a delay. Without it a pipe hand-off cost the wait of
// the blocked-thread check, milliseconds each; with it, a signal and a look at /proc.
//
// A software perf event (PERF_COUNT_SW_CONTEXT_SWITCHES: the scheduler's count, no PMU needed) counts the
// watched thread's switches with a period of one, and each overflow raises kSignal at the tracing thread
// (O_ASYNC with F_SETOWN_EX), which blocks it and reads it from its signalfd. A switch is also a preemption
// or a ptrace stop, so the signal only says "look now"; the thread's state in /proc says what happened.
// One thread is watched at a time: the token's holder, when it is a thread that sleeps in untrapped syscalls
// (every watched stop is a switch too, news to dismiss).

#include "formats/FileIo.h"

#include <signal.h>
#include <sys/types.h>

#include <cstdint>
#include <map>

namespace hermit::tracer {

class ContextSwitchAlarm {
public:
    // Raised at the tracing thread; ignored by default, so a late one after the run harms nothing.
    static constexpr int kSignal = SIGURG;

    // Whether this host lets the tracer count a thread's context switches (probed once per process).
    static bool available();

    // From now on, kSignal comes to the calling thread whenever `host_tid` is switched out, and no more
    // for the thread watched before. False when the event cannot be made.
    bool watch(pid_t host_tid);
    // No thread is watched.
    void unwatch();
    // The thread is gone: its event is closed.
    void forget(pid_t host_tid);
    // How many times `host_tid` was switched out since it is watched (0 when it is not).
    uint64_t switches(pid_t host_tid) const;

private:
    std::map<pid_t, UniqueFd> events_; // opened disabled; only the watched one is enabled
    pid_t watched_ = 0;
};

} // namespace hermit::tracer
