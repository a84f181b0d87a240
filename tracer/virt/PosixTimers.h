#pragma once
// PosixTimers: the guest's POSIX per-process timers (timer_create(2), timer_settime, timer_gettime,
// timer_getoverrun, timer_delete) on the virtual clock. The tracer emulates the syscalls and keeps the
// timers here, by process and timer id (ids count from 0 in each process, as the kernel's do). A due
// timer queues its signal with si_code SI_TIMER, the timer id, the overrun and the sigev_value, to the
// process (SIGEV_SIGNAL) or to one thread (SIGEV_THREAD_ID, which glibc's SIGEV_THREAD uses); SIGEV_NONE
// timers only count. Timers on CPU-time clocks count virtual busy time. While the timer's signal is still
// pending, further expirations only add to the overrun, as in the kernel.
//
// As in the kernel, exec deletes a process's timers (the Virtualizer calls forget()), a fork's child starts
// without any, and clocks without timers (MONOTONIC_RAW, the coarse clocks) are refused.

#include "IntervalTimer.h"
#include "VirtualClock.h"

#include <signal.h>
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <utility>

namespace hermit::tracer::virt {

class PosixTimers {
public:
    struct Notification {
        int kind = SIGEV_SIGNAL; // SIGEV_SIGNAL, SIGEV_NONE or SIGEV_THREAD_ID
        int signal = SIGALRM;
        sigval value{};
        pid_t host_tid = 0; // the thread of SIGEV_THREAD_ID
        // timer_create without a sigevent: SIGALRM carrying the timer id.
        bool value_is_timer_id = false;
    };

    explicit PosixTimers(VirtualClock& clock) : clock_(clock) {}

    // Whether timer_create accepts `clock_id`.
    static bool supports(clockid_t clock_id);
    // A new disarmed timer of process `host_pid`; returns its id.
    int create(pid_t host_pid, clockid_t clock_id, const Notification& notification);
    // timer_settime: the previous setting, or nullopt when the process has no timer `id`.
    std::optional<itimerspec> set(pid_t host_pid, int id, bool absolute, const itimerspec& value);
    std::optional<itimerspec> get(pid_t host_pid, int id) const;
    // The overrun of the last expiration signalled, or nullopt when there is no timer `id`.
    std::optional<int> overrun(pid_t host_pid, int id) const;
    bool remove(pid_t host_pid, int id);
    // The process exec'd: its timers are gone.
    void forget(pid_t host_pid);

    // Signals the timers whose deadline has passed and re-arms periodic ones.
    // Delivers what is due; whether anything was.
    bool fire_due();
    // The earliest deadline of a timer on elapsed time (virtual elapsed ns), if any is armed.
    std::optional<uint64_t> next_deadline() const;

private:
    struct Timer {
        clockid_t clock_id = CLOCK_MONOTONIC;
        Notification notification;
        IntervalTimer timer;
        int overrun = 0;          // reported with the last signal sent (timer_getoverrun)
        uint64_t unsignalled = 0; // expirations since then, while that signal was still pending
    };

    // Queues the timer's signal; false when the process or thread is gone.
    bool signal(pid_t host_pid, int id, Timer& timer, uint64_t expirations);

    VirtualClock& clock_;
    std::map<std::pair<pid_t, int>, Timer> timers_;
    std::map<pid_t, int> next_id_;
};

} // namespace hermit::tracer::virt
