// IntervalTimer: expirations counted and coalesced as the kernel does, settings read back like
// getitimer/timer_gettime, absolute deadlines on a virtual clock, and CPU-time clocks on busy time.
#include "tracer/virt/IntervalTimer.h"

#include <gtest/gtest.h>

namespace hermit::tracer::virt {
namespace {

constexpr uint64_t kMs = 1'000'000;

TEST(IntervalTimer, OneShotExpiresOnceAtItsDeadline) {
    IntervalTimer timer;
    timer.arm(100, 10 * kMs, 0);
    EXPECT_EQ(timer.expire(100 + 10 * kMs - 1), 0u);
    EXPECT_EQ(timer.expire(100 + 10 * kMs), 1u);
    EXPECT_FALSE(timer.armed());
    EXPECT_EQ(timer.expire(100 + 50 * kMs), 0u);
}

TEST(IntervalTimer, PeriodicTimerCoalescesMissedExpirations) {
    IntervalTimer timer;
    timer.arm(0, 10 * kMs, 5 * kMs);
    EXPECT_EQ(timer.expire(22 * kMs), 3u); // at 10, 15 and 20 ms
    EXPECT_EQ(timer.deadline_ns(), 25 * kMs);
    EXPECT_EQ(timer.expire(24 * kMs), 0u);
}

TEST(IntervalTimer, SettingReadsBackWithTimeLeftNeverZero) {
    IntervalTimer timer;
    timer.arm(0, 1500 * kMs, 100 * kMs);
    const itimerval value = timer.as_itimerval(500 * kMs);
    EXPECT_EQ(value.it_value.tv_sec, 1);
    EXPECT_EQ(value.it_value.tv_usec, 0);
    EXPECT_EQ(value.it_interval.tv_usec, 100000);
    EXPECT_EQ(timer.as_itimerspec(1500 * kMs).it_value.tv_nsec, 1000) << "armed but due: the minimum";
    timer.arm(0, 0, 100 * kMs);
    EXPECT_FALSE(timer.armed()) << "a zero value disarms";
    EXPECT_EQ(timer.as_itimerspec(0).it_interval.tv_nsec, 0);
}

TEST(IntervalTimer, AbsoluteDeadlineIsReadOnTheNamedClock) {
    VirtualClock clock;
    clock.sleep(3 * kMs);
    IntervalTimer timer;
    const int64_t realtime_deadline = clock.realtime_ns() + static_cast<int64_t>(7 * kMs);
    timer.arm(clock, CLOCK_REALTIME, true,
              itimerspec{{0, 0}, {realtime_deadline / 1'000'000'000, realtime_deadline % 1'000'000'000}});
    EXPECT_EQ(timer.deadline_ns(), 10 * kMs);
    timer.arm(clock, CLOCK_MONOTONIC, true, itimerspec{{0, 0}, {1, 0}}); // long past
    EXPECT_EQ(timer.expire(clock.elapsed_ns()), 1u) << "a deadline already past expires at once";
}

TEST(IntervalTimer, CpuTimeClocksCountBusyTime) {
    VirtualClock clock;
    clock.sleep(100 * kMs);
    clock.tick();
    EXPECT_TRUE(IntervalTimer::counts_cpu_time(CLOCK_PROCESS_CPUTIME_ID));
    EXPECT_TRUE(IntervalTimer::counts_cpu_time(-6)); // a clock_getcpuclockid clock
    EXPECT_FALSE(IntervalTimer::counts_cpu_time(CLOCK_MONOTONIC));
    EXPECT_EQ(IntervalTimer::now_ns(clock, CLOCK_THREAD_CPUTIME_ID), clock.busy_ns());
    EXPECT_EQ(IntervalTimer::now_ns(clock, CLOCK_BOOTTIME), clock.elapsed_ns());
}

TEST(IntervalTimer, RejectsOutOfRangeValues) {
    EXPECT_TRUE(IntervalTimer::valid(timespec{1, 999999999}));
    EXPECT_FALSE(IntervalTimer::valid(timespec{1, 1000000000}));
    EXPECT_FALSE(IntervalTimer::valid(timespec{-1, 0}));
    EXPECT_TRUE(IntervalTimer::valid(timeval{0, 999999}));
    EXPECT_FALSE(IntervalTimer::valid(timeval{0, 1000000}));
}

} // namespace
} // namespace hermit::tracer::virt
