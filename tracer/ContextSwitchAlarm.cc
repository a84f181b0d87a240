#include "ContextSwitchAlarm.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace hermit::tracer {

namespace {

int open_switch_counter(pid_t host_tid) {
    perf_event_attr attributes{};
    attributes.type = PERF_TYPE_SOFTWARE;
    attributes.size = sizeof attributes;
    attributes.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
    attributes.sample_period = 1;
    attributes.wakeup_events = 1;
    attributes.disabled = 1;
    return static_cast<int>(
        syscall(SYS_perf_event_open, &attributes, host_tid, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

// Overflows of `event` signal the calling thread with kSignal.
bool signal_caller(int event) {
    static thread_local const pid_t caller = static_cast<pid_t>(syscall(SYS_gettid));
    const f_owner_ex owner{F_OWNER_TID, caller};
    return fcntl(event, F_SETOWN_EX, &owner) == 0 &&
           fcntl(event, F_SETSIG, ContextSwitchAlarm::kSignal) == 0 && fcntl(event, F_SETFL, O_ASYNC) == 0;
}

} // namespace

bool ContextSwitchAlarm::available() {
    static const bool counts = [] {
        const UniqueFd event(open_switch_counter(0));
        return event.get() >= 0;
    }();
    return counts;
}

bool ContextSwitchAlarm::watch(pid_t host_tid) {
    if (watched_ == host_tid) {
        return true;
    }
    unwatch();
    auto found = events_.find(host_tid);
    if (found == events_.end()) {
        UniqueFd event(open_switch_counter(host_tid));
        if (event.get() < 0 || !signal_caller(event.get())) {
            return false;
        }
        found = events_.emplace(host_tid, std::move(event)).first;
    }
    if (ioctl(found->second.get(), PERF_EVENT_IOC_ENABLE, 0) != 0) {
        return false;
    }
    watched_ = host_tid;
    return true;
}

void ContextSwitchAlarm::unwatch() {
    if (const auto found = events_.find(watched_); found != events_.end()) {
        ioctl(found->second.get(), PERF_EVENT_IOC_DISABLE, 0);
    }
    watched_ = 0;
}

void ContextSwitchAlarm::forget(pid_t host_tid) {
    if (watched_ == host_tid) {
        watched_ = 0;
    }
    events_.erase(host_tid);
}

uint64_t ContextSwitchAlarm::switches(pid_t host_tid) const {
    const auto found = events_.find(host_tid);
    uint64_t count = 0;
    return found != events_.end() && read(found->second.get(), &count, sizeof count) == sizeof count ? count
                                                                                                     : 0;
}

} // namespace hermit::tracer
