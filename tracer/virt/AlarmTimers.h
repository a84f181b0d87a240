#pragma once
// AlarmTimers: each guest process's ITIMER_REAL (alarm(2), setitimer(2)) on the virtual clock. A timer
// fires when virtual time passes its deadline, which the Session checks at every scheduling point, so
// SIGALRM arrives at the same point of every run; when every guest thread waits, virtual time jumps to
// the next deadline (nothing else could happen before it).

#include "VirtualClock.h"

#include <sys/time.h>
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>

namespace hermit::tracer::virt {

class AlarmTimers {
public:
    explicit AlarmTimers(VirtualClock& clock) : clock_(clock) {}

    // setitimer(ITIMER_REAL) of process `host_pid`: arms (or, with a zero value, disarms) its timer and
    // returns the previous setting, as getitimer would have reported it.
    itimerval set(pid_t host_pid, const itimerval& value);
    itimerval get(pid_t host_pid) const;

    // Sends SIGALRM to every process whose deadline has passed, and re-arms periodic timers.
    void fire_due();
    // The earliest deadline (virtual elapsed ns), if any timer is armed.
    std::optional<uint64_t> next_deadline() const;

private:
    struct Timer {
        uint64_t deadline_ns = 0; // virtual elapsed ns
        uint64_t interval_ns = 0; // 0: one-shot
    };

    VirtualClock& clock_;
    std::map<pid_t, Timer> timers_; // by host pid; a fork's child starts without one, as in the kernel
};

} // namespace hermit::tracer::virt
