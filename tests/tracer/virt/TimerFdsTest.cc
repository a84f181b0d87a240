// TimerFds against real eventfds of this process (pidfd_getfd and kcmp work on oneself): expirations are
// added to the eventfd only once virtual time passes the deadline, settime resets the count, duplicated
// descriptors are recognized, and a timer whose descriptor is closed is dropped.
#include "tracer/virt/TimerFds.h"

#include <gtest/gtest.h>

#include <sys/eventfd.h>
#include <unistd.h>

namespace hermit::tracer::virt {
namespace {

constexpr uint64_t kMs = 1'000'000;

itimerspec after(long milliseconds, long interval_milliseconds = 0) {
    return itimerspec{{interval_milliseconds / 1000, interval_milliseconds % 1000 * 1'000'000},
                      {milliseconds / 1000, milliseconds % 1000 * 1'000'000}};
}

// The expiration count a read of the guest's descriptor returns; 0 when it would block.
uint64_t read_count(int fd) {
    uint64_t count = 0;
    return read(fd, &count, sizeof count) == sizeof count ? count : 0;
}

class TimerFdsTest : public ::testing::Test {
protected:
    void SetUp() override {
        fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        ASSERT_GE(fd_, 0);
        ASSERT_TRUE(timers_.adopt(getpid(), fd_, CLOCK_MONOTONIC));
    }
    void TearDown() override {
        if (fd_ >= 0) {
            close(fd_);
        }
    }

    VirtualClock clock_;
    TimerFds timers_{clock_};
    int fd_ = -1;
};

TEST_F(TimerFdsTest, ExpiresOnlyOnceVirtualTimePassesTheDeadline) {
    ASSERT_TRUE(timers_.set(getpid(), fd_, false, after(10)));
    EXPECT_EQ(timers_.next_deadline(), 10 * kMs);
    clock_.sleep(9 * kMs);
    timers_.fire_due();
    EXPECT_EQ(read_count(fd_), 0u) << "expired early";
    clock_.sleep(1 * kMs);
    timers_.fire_due();
    EXPECT_EQ(read_count(fd_), 1u);
    EXPECT_FALSE(timers_.next_deadline().has_value());
}

TEST_F(TimerFdsTest, PeriodicExpirationsAddUpAndSettimeResetsThem) {
    timers_.set(getpid(), fd_, false, after(10, 10));
    clock_.sleep(35 * kMs);
    timers_.fire_due();
    const auto left = timers_.get(getpid(), fd_);
    ASSERT_TRUE(left.has_value());
    EXPECT_EQ(left->it_value.tv_nsec, static_cast<long>(5 * kMs));
    const auto previous = timers_.set(getpid(), fd_, false, after(100));
    ASSERT_TRUE(previous.has_value());
    EXPECT_EQ(previous->it_interval.tv_nsec, static_cast<long>(10 * kMs));
    EXPECT_EQ(read_count(fd_), 0u) << "timerfd_settime discards the unread expirations";
}

TEST_F(TimerFdsTest, RecognizesADuplicateAndIgnoresOtherDescriptors) {
    const int copy = dup(fd_);
    EXPECT_TRUE(timers_.get(getpid(), copy).has_value());
    close(copy);
    const int unrelated = eventfd(0, EFD_CLOEXEC);
    EXPECT_FALSE(timers_.set(getpid(), unrelated, false, after(1)).has_value());
    close(unrelated);
}

TEST_F(TimerFdsTest, TimerOfAClosedDescriptorIsDropped) {
    timers_.set(getpid(), fd_, false, after(1, 1));
    close(fd_);
    fd_ = -1;
    clock_.sleep(5 * kMs);
    timers_.fire_due();
    EXPECT_FALSE(timers_.next_deadline().has_value());
}

} // namespace
} // namespace hermit::tracer::virt
