#include "VirtualClock.h"

#include <algorithm>

namespace hermit::tracer::virt {

void VirtualClock::tick() {
    elapsed_ns_ += kEventStepNs;
    busy_ns_ += kEventStepNs;
}

void VirtualClock::sleep(uint64_t duration_ns) {
    elapsed_ns_ += duration_ns;
}

void VirtualClock::sleep_until(uint64_t deadline_ns) {
    elapsed_ns_ = std::max(elapsed_ns_, deadline_ns);
}

void VirtualClock::saw_file_time(int64_t realtime_ns) {
    file_steps_ns_ += std::max<int64_t>(realtime_ns - file_time_ns(), 0);
}

std::optional<int64_t> VirtualClock::read(clockid_t clock) const {
    if (clock < 0) {
        // Dynamic CPU-time clocks of another process or thread (clock_getcpuclockid, pthread_getcpuclockid)
        // are encoded as negative ids; all CPU-time clocks read the run's busy time.
        return static_cast<int64_t>(busy_ns_);
    }
    switch (clock) {
    case CLOCK_REALTIME:
    case CLOCK_REALTIME_COARSE:
    case CLOCK_REALTIME_ALARM:
        return realtime_ns();
    case CLOCK_TAI:
        return realtime_ns() + kTaiOffsetNs;
    case CLOCK_MONOTONIC:
    case CLOCK_MONOTONIC_RAW:
    case CLOCK_MONOTONIC_COARSE:
    case CLOCK_BOOTTIME:
    case CLOCK_BOOTTIME_ALARM:
        return monotonic_ns();
    case CLOCK_PROCESS_CPUTIME_ID:
    case CLOCK_THREAD_CPUTIME_ID:
        return static_cast<int64_t>(busy_ns_);
    default:
        return std::nullopt;
    }
}

std::optional<int64_t> VirtualClock::resolution(clockid_t clock) const {
    if (!read(clock)) {
        return std::nullopt;
    }
    // The coarse clocks tick with the (virtual) 250 Hz jiffy; everything else claims 1 ns like the kernel's
    // high-resolution timers.
    if (clock == CLOCK_REALTIME_COARSE || clock == CLOCK_MONOTONIC_COARSE) {
        return 4000000;
    }
    return 1;
}

bool VirtualClock::sleepable(clockid_t clock) {
    switch (clock) {
    case CLOCK_REALTIME:
    case CLOCK_MONOTONIC:
    case CLOCK_BOOTTIME:
    case CLOCK_TAI:
    case CLOCK_REALTIME_ALARM:
    case CLOCK_BOOTTIME_ALARM:
        return true;
    default:
        return false;
    }
}

uint64_t VirtualClock::next_tsc() {
    uint64_t value = static_cast<uint64_t>(monotonic_ns()) * kTscTicksPerNs;
    if (value <= last_tsc_) {
        value = last_tsc_ + 1;
    }
    last_tsc_ = value;
    return value;
}

} // namespace hermit::tracer::virt
