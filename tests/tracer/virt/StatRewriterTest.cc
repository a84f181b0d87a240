#include "tracer/virt/StatRewriter.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace hermit::tracer::virt {
namespace {

int64_t ns_of(const timespec& time) {
    return time.tv_sec * 1'000'000'000LL + time.tv_nsec;
}

// The test binary was built before the "run" began, so it is an input: its real times are shown.
TEST(StatRewriterTest, AnInputKeepsItsRealTimesAndMovesTheWallClockUpToThem) {
    struct stat status {};
    ASSERT_EQ(stat("/proc/self/exe", &status), 0);
    const struct stat original = status;
    VirtualClock clock;
    FileTimes times(clock, ns_of(original.st_ctim) + 1);
    InodeTable inodes;
    const StatRewriter rewriter(inodes, times, clock);
    rewriter.rewrite(status);
    EXPECT_EQ(ns_of(status.st_mtim), ns_of(original.st_mtim));
    EXPECT_EQ(ns_of(status.st_ctim), ns_of(original.st_ctim));
    EXPECT_EQ(ns_of(status.st_atim), ns_of(original.st_mtim)); // reads would move a real one
    EXPECT_EQ(status.st_dev, InodeTable::kVirtualDevice);
    EXPECT_EQ(status.st_ino, InodeTable::kFirstInode);
    EXPECT_EQ(status.st_size, original.st_size);
    EXPECT_EQ(status.st_mode, original.st_mode);
    EXPECT_EQ(clock.file_time_ns(), StatRewriter::latest_time(status));

    // Another file gets the next number; the first keeps its number.
    struct stat other {};
    ASSERT_EQ(stat("/", &other), 0);
    rewriter.rewrite(other);
    EXPECT_EQ(other.st_ino, InodeTable::kFirstInode + 1);
    struct stat again = original;
    rewriter.rewrite(again);
    EXPECT_EQ(again.st_ino, InodeTable::kFirstInode);
}

// With the run begun before the file's last change, the file is the run's: virtual times, in statx too.
TEST(StatRewriterTest, AFileTheRunChangedShowsTheVirtualClockInStatAndStatx) {
    struct statx extended {};
    ASSERT_EQ(statx(AT_FDCWD, "/", 0, STATX_ALL, &extended), 0);
    VirtualClock clock;
    clock.tick();
    FileTimes times(clock, 0);
    InodeTable inodes;
    const StatRewriter rewriter(inodes, times, clock);
    rewriter.rewrite(extended);
    const int64_t now = clock.file_time_ns();
    EXPECT_EQ(extended.stx_mtime.tv_sec * 1'000'000'000LL + extended.stx_mtime.tv_nsec, now);
    EXPECT_EQ(makedev(extended.stx_dev_major, extended.stx_dev_minor), InodeTable::kVirtualDevice);
    clock.tick();
    struct stat status {};
    ASSERT_EQ(stat("/", &status), 0);
    rewriter.rewrite(status);
    EXPECT_EQ(status.st_ino, extended.stx_ino);
    EXPECT_EQ(ns_of(status.st_mtim), now) << "unchanged since, it keeps the time first shown";
}

} // namespace
} // namespace hermit::tracer::virt
