#pragma once
// IntervalTimer: the arithmetic every guest timer on the virtual clock shares (alarm/setitimer, POSIX
// timers, timerfds): a deadline and an optional period on one time base, measured in virtual ns. Which base
// (elapsed time or busy CPU time) and what an expiration does belong to the owner.

#include "VirtualClock.h"

#include <cstdint>
#include <ctime>
#include <optional>
#include <sys/time.h>

namespace hermit::tracer::virt {

class IntervalTimer {
public:
    bool armed() const { return armed_; }
    uint64_t deadline_ns() const { return deadline_ns_; }
    uint64_t interval_ns() const { return interval_ns_; }

    // Arms the timer to expire `delay_ns` after `now_ns` (a delay of 0 disarms it), then every `interval_ns`.
    void arm(uint64_t now_ns, uint64_t delay_ns, uint64_t interval_ns);
    void disarm() { armed_ = false; }
    // Arms the timer as timer_settime(2) and timerfd_settime(2) do for a timer on `clock_id`: `value` is
    // relative to now, or with `absolute` a time of that clock (a time already past expires at once).
    void arm(const VirtualClock& clock, clockid_t clock_id, bool absolute, const itimerspec& value);

    // How many expirations fell at or before `now_ns` since the last call (0 when not due). A periodic
    // timer moves its deadline past `now_ns`; a one-shot timer is disarmed.
    uint64_t expire(uint64_t now_ns);

    // Time left until the next expiration as the kernel reports it: never zero while armed.
    uint64_t remaining_ns(uint64_t now_ns) const;

    // The setting as setitimer/getitimer and timer_settime/timerfd_settime exchange it.
    itimerval as_itimerval(uint64_t now_ns) const;
    itimerspec as_itimerspec(uint64_t now_ns) const;

    // The time base of timers on `clock_id`: busy (CPU) time for CPU-time clocks, elapsed time otherwise.
    static uint64_t now_ns(const VirtualClock& clock, clockid_t clock_id);
    static bool counts_cpu_time(clockid_t clock_id);

    static uint64_t to_ns(const timeval& value);
    static uint64_t to_ns(const timespec& value);
    // Whether the kernel accepts the value (microseconds or nanoseconds in range, nothing negative).
    static bool valid(const timeval& value);
    static bool valid(const timespec& value);

private:
    bool armed_ = false;
    uint64_t deadline_ns_ = 0;
    uint64_t interval_ns_ = 0; // 0: one-shot
};

} // namespace hermit::tracer::virt
