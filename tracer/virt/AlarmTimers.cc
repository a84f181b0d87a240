#include "AlarmTimers.h"

#include <signal.h>

#include <cerrno>

namespace hermit::tracer::virt {

namespace {

int signal_of(int which) {
    switch (which) {
    case ITIMER_VIRTUAL:
        return SIGVTALRM;
    case ITIMER_PROF:
        return SIGPROF;
    default:
        return SIGALRM;
    }
}

} // namespace

uint64_t AlarmTimers::now_ns(int which) const {
    return which == ITIMER_REAL ? clock_.elapsed_ns() : clock_.busy_ns();
}

itimerval AlarmTimers::get(pid_t host_pid, int which) const {
    auto found = timers_.find({host_pid, which});
    return found == timers_.end() ? itimerval{} : found->second.as_itimerval(now_ns(which));
}

itimerval AlarmTimers::set(pid_t host_pid, int which, const itimerval& value) {
    const itimerval previous = get(host_pid, which);
    IntervalTimer timer;
    timer.arm(now_ns(which), IntervalTimer::to_ns(value.it_value), IntervalTimer::to_ns(value.it_interval));
    if (timer.armed()) {
        timers_[{host_pid, which}] = timer;
    } else {
        timers_.erase({host_pid, which});
    }
    return previous;
}

bool AlarmTimers::fire_due() {
    bool fired = false;
    for (auto it = timers_.begin(); it != timers_.end();) {
        const auto [pid, which] = it->first;
        // Expirations that fell together coalesce into one pending signal, as in the kernel.
        if (it->second.expire(now_ns(which)) == 0) {
            ++it;
            continue;
        }
        fired = true;
        const bool gone = kill(pid, signal_of(which)) != 0 && errno == ESRCH;
        it = gone || !it->second.armed() ? timers_.erase(it) : std::next(it);
    }
    return fired;
}

std::optional<uint64_t> AlarmTimers::next_deadline() const {
    std::optional<uint64_t> earliest;
    for (const auto& [key, timer] : timers_) {
        if (key.second == ITIMER_REAL && (!earliest || timer.deadline_ns() < *earliest)) {
            earliest = timer.deadline_ns();
        }
    }
    return earliest;
}

} // namespace hermit::tracer::virt
