#include "AlarmTimers.h"

#include <signal.h>

#include <cerrno>

namespace hermit::tracer::virt {

namespace {

constexpr uint64_t kNsPerSecond = 1'000'000'000;

uint64_t to_ns(const timeval& value) {
    return static_cast<uint64_t>(value.tv_sec) * kNsPerSecond + static_cast<uint64_t>(value.tv_usec) * 1000;
}

timeval to_timeval(uint64_t ns) {
    return timeval{static_cast<time_t>(ns / kNsPerSecond),
                   static_cast<suseconds_t>(ns % kNsPerSecond / 1000)};
}

} // namespace

itimerval AlarmTimers::get(pid_t host_pid) const {
    auto found = timers_.find(host_pid);
    if (found == timers_.end()) {
        return {};
    }
    const uint64_t now = clock_.elapsed_ns();
    // An armed timer never reports zero time left: the kernel rounds up to one microsecond.
    const uint64_t left = found->second.deadline_ns > now ? found->second.deadline_ns - now : 1000;
    return itimerval{to_timeval(found->second.interval_ns), to_timeval(std::max<uint64_t>(left, 1000))};
}

itimerval AlarmTimers::set(pid_t host_pid, const itimerval& value) {
    const itimerval previous = get(host_pid);
    const uint64_t delay = to_ns(value.it_value);
    if (delay == 0) {
        timers_.erase(host_pid);
    } else {
        timers_[host_pid] = Timer{clock_.elapsed_ns() + delay, to_ns(value.it_interval)};
    }
    return previous;
}

void AlarmTimers::fire_due() {
    const uint64_t now = clock_.elapsed_ns();
    for (auto it = timers_.begin(); it != timers_.end();) {
        Timer& timer = it->second;
        if (timer.deadline_ns > now) {
            ++it;
            continue;
        }
        if (kill(it->first, SIGALRM) != 0 && errno == ESRCH) {
            it = timers_.erase(it); // the process is gone
            continue;
        }
        if (timer.interval_ns == 0) {
            it = timers_.erase(it);
            continue;
        }
        // Expirations that fell together coalesce into one pending SIGALRM, as in the kernel.
        while (timer.deadline_ns <= now) {
            timer.deadline_ns += timer.interval_ns;
        }
        ++it;
    }
}

std::optional<uint64_t> AlarmTimers::next_deadline() const {
    std::optional<uint64_t> earliest;
    for (const auto& [pid, timer] : timers_) {
        if (!earliest || timer.deadline_ns < *earliest) {
            earliest = timer.deadline_ns;
        }
    }
    return earliest;
}

} // namespace hermit::tracer::virt
