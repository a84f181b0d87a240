#include "IntervalTimer.h"

#include <algorithm>

namespace hermit::tracer::virt {

namespace {

constexpr uint64_t kNsPerSecond = 1'000'000'000;
// An armed timer never reports zero time left: the kernel rounds up to its resolution.
constexpr uint64_t kMinimumRemainingNs = 1000;

timeval to_timeval(uint64_t ns) {
    return timeval{static_cast<time_t>(ns / kNsPerSecond),
                   static_cast<suseconds_t>(ns % kNsPerSecond / 1000)};
}

timespec to_timespec(uint64_t ns) {
    return timespec{static_cast<time_t>(ns / kNsPerSecond), static_cast<long>(ns % kNsPerSecond)};
}

} // namespace

void IntervalTimer::arm(uint64_t now_ns, uint64_t delay_ns, uint64_t interval_ns) {
    armed_ = delay_ns != 0;
    deadline_ns_ = armed_ ? now_ns + delay_ns : 0;
    interval_ns_ = armed_ ? interval_ns : 0;
}

void IntervalTimer::arm(const VirtualClock& clock, clockid_t clock_id, bool absolute,
                        const itimerspec& value) {
    const uint64_t now = now_ns(clock, clock_id);
    const uint64_t requested = to_ns(value.it_value);
    arm(now, requested, to_ns(value.it_interval));
    if (absolute && armed_) {
        // A deadline already past expires at the next check.
        const int64_t clock_now = clock.read(clock_id).value_or(0);
        const int64_t wanted = static_cast<int64_t>(requested);
        deadline_ns_ = now + (wanted > clock_now ? static_cast<uint64_t>(wanted - clock_now) : 0);
    }
}

bool IntervalTimer::counts_cpu_time(clockid_t clock_id) {
    // Negative ids are the dynamic CPU-time clocks of clock_getcpuclockid and pthread_getcpuclockid.
    return clock_id < 0 || clock_id == CLOCK_PROCESS_CPUTIME_ID || clock_id == CLOCK_THREAD_CPUTIME_ID;
}

uint64_t IntervalTimer::now_ns(const VirtualClock& clock, clockid_t clock_id) {
    return counts_cpu_time(clock_id) ? clock.busy_ns() : clock.elapsed_ns();
}

uint64_t IntervalTimer::expire(uint64_t now_ns) {
    if (!armed() || deadline_ns_ > now_ns) {
        return 0;
    }
    if (interval_ns_ == 0) {
        armed_ = false;
        return 1;
    }
    const uint64_t expirations = (now_ns - deadline_ns_) / interval_ns_ + 1;
    deadline_ns_ += expirations * interval_ns_;
    return expirations;
}

uint64_t IntervalTimer::remaining_ns(uint64_t now_ns) const {
    if (!armed()) {
        return 0;
    }
    return std::max(deadline_ns_ > now_ns ? deadline_ns_ - now_ns : 0, kMinimumRemainingNs);
}

itimerval IntervalTimer::as_itimerval(uint64_t now_ns) const {
    return itimerval{to_timeval(interval_ns_), to_timeval(remaining_ns(now_ns))};
}

itimerspec IntervalTimer::as_itimerspec(uint64_t now_ns) const {
    return itimerspec{to_timespec(interval_ns_), to_timespec(remaining_ns(now_ns))};
}

uint64_t IntervalTimer::to_ns(const timeval& value) {
    return static_cast<uint64_t>(value.tv_sec) * kNsPerSecond + static_cast<uint64_t>(value.tv_usec) * 1000;
}

uint64_t IntervalTimer::to_ns(const timespec& value) {
    return static_cast<uint64_t>(value.tv_sec) * kNsPerSecond + static_cast<uint64_t>(value.tv_nsec);
}

bool IntervalTimer::valid(const timeval& value) {
    return value.tv_sec >= 0 && value.tv_usec >= 0 && value.tv_usec < 1000000;
}

bool IntervalTimer::valid(const timespec& value) {
    return value.tv_sec >= 0 && value.tv_nsec >= 0 && value.tv_nsec < static_cast<long>(kNsPerSecond);
}

} // namespace hermit::tracer::virt
