#include "PosixTimers.h"

#include "tracer/ProcFs.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>

namespace hermit::tracer::virt {

bool PosixTimers::supports(clockid_t clock_id) {
    return VirtualClock::sleepable(clock_id) || IntervalTimer::counts_cpu_time(clock_id);
}

int PosixTimers::create(pid_t host_pid, clockid_t clock_id, const Notification& notification) {
    const int id = next_id_[host_pid]++;
    Timer& timer = timers_[{host_pid, id}];
    timer = Timer{clock_id, notification, IntervalTimer{}, 0, 0};
    if (notification.value_is_timer_id) {
        timer.notification.value.sival_int = id;
    }
    return id;
}

std::optional<itimerspec> PosixTimers::set(pid_t host_pid, int id, bool absolute, const itimerspec& value) {
    auto found = timers_.find({host_pid, id});
    if (found == timers_.end()) {
        return std::nullopt;
    }
    Timer& timer = found->second;
    const itimerspec previous = timer.timer.as_itimerspec(IntervalTimer::now_ns(clock_, timer.clock_id));
    timer.timer.arm(clock_, timer.clock_id, absolute, value);
    timer.unsignalled = 0;
    return previous;
}

std::optional<itimerspec> PosixTimers::get(pid_t host_pid, int id) const {
    auto found = timers_.find({host_pid, id});
    if (found == timers_.end()) {
        return std::nullopt;
    }
    return found->second.timer.as_itimerspec(IntervalTimer::now_ns(clock_, found->second.clock_id));
}

std::optional<int> PosixTimers::overrun(pid_t host_pid, int id) const {
    auto found = timers_.find({host_pid, id});
    return found == timers_.end() ? std::nullopt : std::optional<int>(found->second.overrun);
}

bool PosixTimers::remove(pid_t host_pid, int id) {
    return timers_.erase({host_pid, id}) > 0;
}

void PosixTimers::forget(pid_t host_pid) {
    timers_.erase(timers_.lower_bound({host_pid, INT_MIN}), timers_.upper_bound({host_pid, INT_MAX}));
    next_id_.erase(host_pid);
}

bool PosixTimers::signal(pid_t host_pid, int id, Timer& timer, uint64_t expirations) {
    const Notification& notification = timer.notification;
    const pid_t target = notification.kind == SIGEV_THREAD_ID ? notification.host_tid : host_pid;
    const uint64_t bit = uint64_t{1} << (notification.signal - 1);
    if (procfs::thread_state(target) == 0) {
        return false;
    }
    if ((procfs::signal_dispositions(target).pending & bit) != 0) {
        timer.unsignalled += expirations; // the kernel counts them as overruns of the pending signal
        return true;
    }
    const uint64_t overrun = timer.unsignalled + expirations - 1;
    timer.overrun = static_cast<int>(std::min<uint64_t>(overrun, INT_MAX));
    timer.unsignalled = 0;
    siginfo_t info{};
    info.si_signo = notification.signal;
    info.si_code = SI_TIMER;
    info.si_timerid = id;
    info.si_overrun = timer.overrun;
    info.si_value = notification.value;
    // A negative si_code (SI_TIMER) is what lets the tracer queue a signal that claims to come from a timer.
    const long sent =
        notification.kind == SIGEV_THREAD_ID
            ? syscall(SYS_rt_tgsigqueueinfo, host_pid, notification.host_tid, notification.signal, &info)
            : syscall(SYS_rt_sigqueueinfo, host_pid, notification.signal, &info);
    return sent == 0 || errno != ESRCH;
}

bool PosixTimers::fire_due() {
    bool fired = false;
    for (auto it = timers_.begin(); it != timers_.end();) {
        Timer& timer = it->second;
        const uint64_t expirations = timer.timer.expire(IntervalTimer::now_ns(clock_, timer.clock_id));
        if (expirations == 0 || timer.notification.kind == SIGEV_NONE) {
            ++it;
            continue;
        }
        fired = true;
        const auto [pid, id] = it->first;
        it = signal(pid, id, timer, expirations) ? std::next(it) : timers_.erase(it);
    }
    return fired;
}

std::optional<uint64_t> PosixTimers::next_deadline() const {
    std::optional<uint64_t> earliest;
    for (const auto& [key, timer] : timers_) {
        // SIGEV_NONE timers end no wait, so time never needs to jump to them.
        if (timer.timer.armed() && timer.notification.kind != SIGEV_NONE &&
            !IntervalTimer::counts_cpu_time(timer.clock_id) &&
            (!earliest || timer.timer.deadline_ns() < *earliest)) {
            earliest = timer.timer.deadline_ns();
        }
    }
    return earliest;
}

} // namespace hermit::tracer::virt
