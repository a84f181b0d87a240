// PosixTimers against a real process: the signal arrives with si_code SI_TIMER, the timer id and the
// sigev_value once virtual time passes the deadline; ids count from 0 per process; SIGEV_NONE and CPU-time
// timers never make virtual time jump.
#include "tracer/virt/PosixTimers.h"

#include "SignalTarget.h"

#include <gtest/gtest.h>

#include <signal.h>

namespace hermit::tracer::virt {
namespace {

constexpr uint64_t kMs = 1'000'000;
constexpr int kValue = 42;

itimerspec after(long milliseconds, long interval_milliseconds = 0) {
    return itimerspec{{interval_milliseconds / 1000, interval_milliseconds % 1000 * 1'000'000},
                      {milliseconds / 1000, milliseconds % 1000 * 1'000'000}};
}

// Accepts only a signal from timer 0 carrying kValue.
bool from_timer_zero(const siginfo_t& info) {
    return info.si_code == SI_TIMER && info.si_timerid == 0 && info.si_value.sival_int == kValue;
}

PosixTimers::Notification signal_with_value() {
    PosixTimers::Notification notification;
    notification.signal = SIGRTMIN;
    notification.value.sival_int = kValue;
    return notification;
}

TEST(PosixTimers, SignalCarriesTimerIdAndValueOnceTheDeadlinePasses) {
    VirtualClock clock;
    PosixTimers timers(clock);
    SignalTarget target(SIGRTMIN, from_timer_zero);
    const pid_t pid = target.pid();
    const int id = timers.create(pid, CLOCK_MONOTONIC, signal_with_value());
    EXPECT_EQ(id, 0);
    ASSERT_TRUE(timers.set(pid, id, false, after(20)));
    EXPECT_EQ(timers.next_deadline(), 20 * kMs);
    clock.sleep(20 * kMs);
    timers.fire_due();
    EXPECT_EQ(timers.overrun(pid, id), 0);
    EXPECT_TRUE(target.received());
}

TEST(PosixTimers, IdsCountPerProcessAndUnknownIdsFail) {
    VirtualClock clock;
    PosixTimers timers(clock);
    EXPECT_EQ(timers.create(100, CLOCK_REALTIME, signal_with_value()), 0);
    EXPECT_EQ(timers.create(100, CLOCK_REALTIME, signal_with_value()), 1);
    EXPECT_EQ(timers.create(200, CLOCK_REALTIME, signal_with_value()), 0);
    EXPECT_FALSE(timers.set(100, 7, false, after(1)).has_value());
    EXPECT_FALSE(timers.get(300, 0).has_value());
    EXPECT_TRUE(timers.remove(100, 1));
    EXPECT_FALSE(timers.remove(100, 1));
    timers.forget(100);
    EXPECT_FALSE(timers.get(100, 0).has_value());
    EXPECT_TRUE(timers.get(200, 0).has_value());
}

TEST(PosixTimers, OnlySignallingTimersOnElapsedTimeAreDeadlinesToJumpTo) {
    VirtualClock clock;
    PosixTimers timers(clock);
    PosixTimers::Notification none;
    none.kind = SIGEV_NONE;
    timers.set(100, timers.create(100, CLOCK_MONOTONIC, none), false, after(5));
    timers.set(100, timers.create(100, CLOCK_PROCESS_CPUTIME_ID, signal_with_value()), false, after(5));
    EXPECT_FALSE(timers.next_deadline().has_value());
    clock.sleep(10 * kMs);
    timers.fire_due();
    EXPECT_EQ(timers.get(100, 0)->it_value.tv_nsec, 0) << "a SIGEV_NONE timer still expires";
    EXPECT_FALSE(PosixTimers::supports(CLOCK_MONOTONIC_RAW));
    EXPECT_TRUE(PosixTimers::supports(CLOCK_BOOTTIME_ALARM));
}

} // namespace
} // namespace hermit::tracer::virt
