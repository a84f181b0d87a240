#include "tracer/virt/StatRewriter.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace hermit::tracer::virt {
namespace {

constexpr int64_t kEpochNs = 946684800LL * 1000000000LL + 5;

TEST(StatRewriterTest, RewritesTimesDeviceAndInodeOfARealStat) {
    struct stat status {};
    ASSERT_EQ(stat("/proc/self/exe", &status), 0);
    const struct stat original = status;
    InodeTable inodes;
    StatRewriter rewriter(inodes, kEpochNs);
    rewriter.rewrite(status);
    EXPECT_EQ(status.st_mtim.tv_sec, 946684800);
    EXPECT_EQ(status.st_mtim.tv_nsec, 5);
    EXPECT_EQ(status.st_atim.tv_sec, 946684800);
    EXPECT_EQ(status.st_ctim.tv_sec, 946684800);
    EXPECT_EQ(status.st_dev, InodeTable::kVirtualDevice);
    EXPECT_EQ(status.st_ino, InodeTable::kFirstInode);
    EXPECT_EQ(status.st_size, original.st_size);
    EXPECT_EQ(status.st_mode, original.st_mode);

    // Another file gets the next number; the first keeps its number.
    struct stat other {};
    ASSERT_EQ(stat("/", &other), 0);
    rewriter.rewrite(other);
    EXPECT_EQ(other.st_ino, InodeTable::kFirstInode + 1);
    struct stat again = original;
    rewriter.rewrite(again);
    EXPECT_EQ(again.st_ino, InodeTable::kFirstInode);
}

TEST(StatRewriterTest, RewritesARealStatxConsistentlyWithStat) {
    struct statx extended {};
    ASSERT_EQ(statx(AT_FDCWD, "/", 0, STATX_ALL, &extended), 0);
    InodeTable inodes;
    StatRewriter rewriter(inodes, kEpochNs);
    rewriter.rewrite(extended);
    EXPECT_EQ(extended.stx_mtime.tv_sec, 946684800);
    EXPECT_EQ(extended.stx_btime.tv_sec, 946684800);
    EXPECT_EQ(makedev(extended.stx_dev_major, extended.stx_dev_minor), InodeTable::kVirtualDevice);
    struct stat status {};
    ASSERT_EQ(stat("/", &status), 0);
    rewriter.rewrite(status);
    EXPECT_EQ(status.st_ino, extended.stx_ino);
}

} // namespace
} // namespace hermit::tracer::virt
