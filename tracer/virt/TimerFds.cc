#include "TimerFds.h"

#include "tracer/Task.h"

#include <linux/kcmp.h>
#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>

namespace hermit::tracer::virt {

namespace {

// Whether descriptor `fd` of process `host_pid` is the open file `own_fd` of hermit.
bool same_file(pid_t host_pid, int fd, int own_fd) {
    return syscall(SYS_kcmp, host_pid, getpid(), KCMP_FILE, fd, own_fd) == 0;
}

} // namespace

TimerFds::~TimerFds() {
    for (const Timer& timer : timers_) {
        close(timer.file);
    }
}

bool TimerFds::supports(clockid_t clock_id) {
    return clock_id == CLOCK_REALTIME || clock_id == CLOCK_MONOTONIC || clock_id == CLOCK_BOOTTIME ||
           clock_id == CLOCK_REALTIME_ALARM || clock_id == CLOCK_BOOTTIME_ALARM;
}

bool TimerFds::adopt(pid_t host_pid, int fd, clockid_t clock_id) {
    const int copy = duplicate_guest_descriptor(host_pid, fd).release();
    if (copy < 0) {
        return false;
    }
    timers_.push_back(Timer{copy, host_pid, fd, clock_id, IntervalTimer{}});
    return true;
}

TimerFds::Timer* TimerFds::find(pid_t host_pid, int fd) {
    for (Timer& timer : timers_) {
        if (same_file(host_pid, fd, timer.file)) {
            timer.holder_pid = host_pid;
            timer.holder_fd = fd;
            return &timer;
        }
    }
    return nullptr;
}

bool TimerFds::still_held(const Timer& timer) {
    return same_file(timer.holder_pid, timer.holder_fd, timer.file);
}

void TimerFds::drain(const Timer& timer) {
    pollfd readable{timer.file, POLLIN, 0};
    // Only the stopped guest shares the file, so a readable eventfd cannot be emptied before the read.
    if (poll(&readable, 1, 0) == 1) {
        uint64_t unread = 0;
        const ssize_t taken = read(timer.file, &unread, sizeof unread);
        (void)taken; // whatever it returned, the count is now 0
    }
}

std::optional<itimerspec> TimerFds::set(pid_t host_pid, int fd, bool absolute, const itimerspec& value) {
    Timer* timer = find(host_pid, fd);
    if (timer == nullptr) {
        return std::nullopt;
    }
    const itimerspec previous = timer->timer.as_itimerspec(clock_.elapsed_ns());
    drain(*timer);
    timer->timer.arm(clock_, timer->clock_id, absolute, value);
    return previous;
}

std::optional<itimerspec> TimerFds::get(pid_t host_pid, int fd) {
    Timer* timer = find(host_pid, fd);
    if (timer == nullptr) {
        return std::nullopt;
    }
    return timer->timer.as_itimerspec(clock_.elapsed_ns());
}

bool TimerFds::fire_due() {
    bool fired = false;
    for (auto it = timers_.begin(); it != timers_.end();) {
        const uint64_t expirations = it->timer.expire(clock_.elapsed_ns());
        if (expirations == 0) {
            ++it;
            continue;
        }
        if (!still_held(*it)) {
            close(it->file);
            it = timers_.erase(it);
            continue;
        }
        fired = true;
        if (write(it->file, &expirations, sizeof expirations) < 0) {
            it->timer.disarm(); // an eventfd refuses only a count that would overflow it
        }
        ++it;
    }
    return fired;
}

std::optional<uint64_t> TimerFds::next_deadline() const {
    std::optional<uint64_t> earliest;
    for (const Timer& timer : timers_) {
        if (timer.timer.armed() && (!earliest || timer.timer.deadline_ns() < *earliest)) {
            earliest = timer.timer.deadline_ns();
        }
    }
    return earliest;
}

} // namespace hermit::tracer::virt
