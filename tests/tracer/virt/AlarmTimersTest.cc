// AlarmTimers against a real process: SIGALRM arrives when the virtual clock passes the deadline, never
// before, and periodic timers re-arm; the settings read back like getitimer(2).
#include "tracer/virt/AlarmTimers.h"

#include "SignalTarget.h"

#include <gtest/gtest.h>

#include <signal.h>

namespace hermit::tracer::virt {
namespace {

constexpr uint64_t kMs = 1'000'000;

itimerval after(long milliseconds, long interval_milliseconds = 0) {
    return itimerval{{interval_milliseconds / 1000, interval_milliseconds % 1000 * 1000},
                     {milliseconds / 1000, milliseconds % 1000 * 1000}};
}

TEST(AlarmTimers, FiresOnlyOnceVirtualTimePassesTheDeadline) {
    VirtualClock clock;
    AlarmTimers timers(clock);
    SignalTarget target(SIGALRM);
    timers.set(target.pid(), ITIMER_REAL, after(20));
    EXPECT_EQ(timers.next_deadline(), 20 * kMs);
    clock.sleep(19 * kMs);
    timers.fire_due();
    EXPECT_TRUE(timers.next_deadline().has_value()) << "fired early";
    clock.sleep(1 * kMs);
    timers.fire_due();
    EXPECT_FALSE(timers.next_deadline().has_value()) << "a one-shot timer is disarmed once it fired";
    EXPECT_TRUE(target.received());
}

TEST(AlarmTimers, PeriodicTimerReArmsAfterItsInterval) {
    VirtualClock clock;
    AlarmTimers timers(clock);
    SignalTarget target(SIGALRM);
    timers.set(target.pid(), ITIMER_REAL, after(10, 5));
    clock.sleep(12 * kMs);
    timers.fire_due();
    EXPECT_EQ(timers.next_deadline(), 15 * kMs);
    EXPECT_TRUE(target.received());
}

TEST(AlarmTimers, SettingReportsThePreviousTimerAndZeroDisarms) {
    VirtualClock clock;
    AlarmTimers timers(clock);
    const pid_t someone = 12345;
    EXPECT_EQ(timers.set(someone, ITIMER_REAL, after(1500, 100)).it_value.tv_sec, 0);
    clock.sleep(500 * kMs);
    itimerval current = timers.get(someone, ITIMER_REAL);
    EXPECT_EQ(current.it_value.tv_sec, 1);
    EXPECT_EQ(current.it_value.tv_usec, 0);
    EXPECT_EQ(current.it_interval.tv_usec, 100000);
    itimerval previous = timers.set(someone, ITIMER_REAL, after(0));
    EXPECT_EQ(previous.it_value.tv_sec, 1);
    EXPECT_FALSE(timers.next_deadline().has_value());
    EXPECT_EQ(timers.get(someone, ITIMER_REAL).it_value.tv_sec, 0);
}

// ITIMER_VIRTUAL and ITIMER_PROF count busy time: sleeping never brings them closer.
TEST(AlarmTimers, CpuTimeTimersCountBusyTimeOnly) {
    VirtualClock clock;
    AlarmTimers timers(clock);
    const pid_t someone = 12345;
    timers.set(someone, ITIMER_VIRTUAL, after(1));
    timers.set(someone, ITIMER_PROF, after(2));
    EXPECT_FALSE(timers.next_deadline().has_value()) << "busy time does not pass while every thread waits";
    clock.sleep(10 * kMs);
    EXPECT_EQ(timers.get(someone, ITIMER_VIRTUAL).it_value.tv_usec, 1000);
    for (uint64_t busy = 0; busy < kMs; busy += VirtualClock::kEventStepNs) {
        clock.tick();
    }
    EXPECT_EQ(timers.get(someone, ITIMER_PROF).it_value.tv_usec, 1000);
    EXPECT_EQ(timers.get(someone, ITIMER_REAL).it_value.tv_sec, 0);
}

} // namespace
} // namespace hermit::tracer::virt
