#pragma once
// TimerFds: the guest's timerfds (timerfd_create(2)) on the virtual clock. The guest gets an eventfd in
// place of each timerfd (the Virtualizer turns timerfd_create into eventfd2 with the same flags): reading
// one returns the 8-byte expiration count and resets it, and it polls readable while the count is not
// zero, just like a timerfd. hermit keeps a duplicate of that eventfd and, when virtual time passes the
// deadline, adds the expirations to it, so reads, poll, select and epoll see the timer expire at the same
// point of every run; a wait for it lets virtual time jump to its deadline like any other timed wait.
// timerfd_settime and timerfd_gettime are emulated; the descriptor is recognized wherever the guest has it
// (after dup, fork or SCM_RIGHTS) by comparing open files with kcmp(2).
//
// Not virtualized: TFD_TIMER_CANCEL_ON_SET never cancels (the virtual realtime clock is never set),
// TFD_IOC_SET_TICKS is not supported, and the guest sees "anon_inode:[eventfd]" in /proc/self/fd.

#include "IntervalTimer.h"
#include "VirtualClock.h"

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace hermit::tracer::virt {

class TimerFds {
public:
    explicit TimerFds(VirtualClock& clock) : clock_(clock) {}
    ~TimerFds(); // closes the duplicates
    TimerFds(const TimerFds&) = delete;
    TimerFds& operator=(const TimerFds&) = delete;

    // Whether timerfd_create accepts `clock_id`.
    static bool supports(clockid_t clock_id);
    // The eventfd `fd` that process `host_pid` just created stands for a new timerfd on `clock_id`.
    // False when its descriptor cannot be duplicated (then it stays a plain eventfd).
    bool adopt(pid_t host_pid, int fd, clockid_t clock_id);
    // timerfd_settime: the previous setting, or nullopt when `fd` is not one of the timerfds.
    std::optional<itimerspec> set(pid_t host_pid, int fd, bool absolute, const itimerspec& value);
    std::optional<itimerspec> get(pid_t host_pid, int fd);

    // Adds the expirations of every due timer to its eventfd.
    // Delivers what is due; whether anything was.
    bool fire_due();
    // The earliest deadline (virtual elapsed ns), if any timer is armed.
    std::optional<uint64_t> next_deadline() const;

private:
    struct Timer {
        int file = -1; // hermit's duplicate of the guest's eventfd
        // Where the guest was last seen holding it; once that descriptor is closed, the timer is dropped.
        pid_t holder_pid = 0;
        int holder_fd = -1;
        clockid_t clock_id = CLOCK_MONOTONIC;
        IntervalTimer timer;
    };

    Timer* find(pid_t host_pid, int fd);
    // Whether the guest still holds the timer's file where it was last seen.
    static bool still_held(const Timer& timer);
    // Takes back expirations the guest has not read yet (timerfd_settime resets the count).
    static void drain(const Timer& timer);

    VirtualClock& clock_;
    std::vector<Timer> timers_;
};

} // namespace hermit::tracer::virt
