#include "tracer/virt/VirtualClock.h"

#include <gtest/gtest.h>

namespace hermit::tracer::virt {
namespace {

TEST(VirtualClockTest, StartsAtTheEpochAndTicksByAFixedStep) {
    VirtualClock clock;
    EXPECT_EQ(*clock.read(CLOCK_REALTIME), 946684800LL * 1000000000LL);
    clock.tick();
    clock.tick();
    EXPECT_EQ(clock.elapsed_ns(), 2 * VirtualClock::kEventStepNs);
    EXPECT_EQ(*clock.read(CLOCK_REALTIME), VirtualClock::kDefaultEpochNs + 2000);
    EXPECT_EQ(*clock.read(CLOCK_MONOTONIC), static_cast<int64_t>(VirtualClock::kBootOffsetNs + 2000));
}

TEST(VirtualClockTest, SleepAdvancesWallTimeButNotCpuTime) {
    VirtualClock clock(0);
    clock.tick();
    clock.sleep(10000000000ULL);
    EXPECT_EQ(*clock.read(CLOCK_REALTIME), 10000001000LL);
    EXPECT_EQ(*clock.read(CLOCK_BOOTTIME), *clock.read(CLOCK_MONOTONIC));
    EXPECT_EQ(*clock.read(CLOCK_PROCESS_CPUTIME_ID), 1000);
    EXPECT_EQ(*clock.read(CLOCK_THREAD_CPUTIME_ID), 1000);
    EXPECT_EQ(*clock.read(CLOCK_TAI) - *clock.read(CLOCK_REALTIME), VirtualClock::kTaiOffsetNs);
}

TEST(VirtualClockTest, RejectsUnknownClocks) {
    VirtualClock clock;
    EXPECT_FALSE(clock.read(99).has_value());
    EXPECT_FALSE(clock.resolution(99).has_value());
    EXPECT_EQ(*clock.resolution(CLOCK_MONOTONIC), 1);
    EXPECT_FALSE(VirtualClock::sleepable(CLOCK_THREAD_CPUTIME_ID));
    EXPECT_TRUE(VirtualClock::sleepable(CLOCK_MONOTONIC));
}

TEST(VirtualClockTest, TimeStampCounterIsStrictlyIncreasingAndFollowsTheClock) {
    VirtualClock clock;
    const uint64_t first = clock.next_tsc();
    EXPECT_EQ(first, VirtualClock::kBootOffsetNs * VirtualClock::kTscTicksPerNs);
    const uint64_t second = clock.next_tsc();
    EXPECT_GT(second, first);
    clock.tick();
    EXPECT_EQ(clock.next_tsc(), (VirtualClock::kBootOffsetNs + 1000) * VirtualClock::kTscTicksPerNs);
}

TEST(VirtualClockTest, TwoClocksFedTheSameEventsAgree) {
    VirtualClock a, b;
    for (VirtualClock* clock : {&a, &b}) {
        clock->tick();
        clock->sleep(12345);
        clock->tick();
    }
    EXPECT_EQ(a.read(CLOCK_REALTIME), b.read(CLOCK_REALTIME));
    EXPECT_EQ(a.next_tsc(), b.next_tsc());
}

} // namespace
} // namespace hermit::tracer::virt
