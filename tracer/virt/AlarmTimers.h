#pragma once
// AlarmTimers: each guest process's interval timers of setitimer(2) (and alarm(2)) on the virtual clock.
// ITIMER_REAL counts virtual elapsed time and sends SIGALRM; ITIMER_VIRTUAL and ITIMER_PROF count the
// virtual busy (CPU) time and send SIGVTALRM and SIGPROF. A timer fires when its time passes the deadline,
// which the Session checks at every scheduling point, so the signal arrives at the same point of every run;
// when every guest thread waits, virtual time jumps to the next ITIMER_REAL deadline (nothing else could
// happen before it). Busy time does not pass while every thread waits, so CPU-time timers never do that.

#include "IntervalTimer.h"
#include "VirtualClock.h"

#include <sys/time.h>
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <utility>

namespace hermit::tracer::virt {

class AlarmTimers {
public:
    explicit AlarmTimers(VirtualClock& clock) : clock_(clock) {}

    // setitimer(`which`) of process `host_pid`: arms (or, with a zero value, disarms) its timer and returns
    // the previous setting, as getitimer would have reported it. `which` is ITIMER_REAL, _VIRTUAL or _PROF.
    itimerval set(pid_t host_pid, int which, const itimerval& value);
    itimerval get(pid_t host_pid, int which) const;

    // Sends the signal of every timer whose deadline has passed, and re-arms periodic timers.
    // Delivers what is due; whether anything was.
    bool fire_due();
    // The earliest ITIMER_REAL deadline (virtual elapsed ns), if any is armed.
    std::optional<uint64_t> next_deadline() const;

private:
    uint64_t now_ns(int which) const;

    VirtualClock& clock_;
    // By host pid and `which`; a fork's child starts without timers, as in the kernel.
    std::map<std::pair<pid_t, int>, IntervalTimer> timers_;
};

} // namespace hermit::tracer::virt
