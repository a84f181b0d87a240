#include "replay/RecordedSyscalls.h"

#include <gtest/gtest.h>
#include <sys/syscall.h>

namespace hermit::replay {
namespace {

TEST(RecordedSyscalls, InputsAreEmulatedOpensAndWritesHaveTheirOwnTreatment) {
    EXPECT_EQ(replay_treatment(SYS_read), ReplayTreatment::EmulateFromLog);
    EXPECT_EQ(replay_treatment(SYS_newfstatat), ReplayTreatment::EmulateFromLog);
    EXPECT_EQ(replay_treatment(SYS_openat), ReplayTreatment::OpenFile);
    EXPECT_EQ(replay_treatment(SYS_write), ReplayTreatment::Write);
    EXPECT_EQ(replay_treatment(SYS_mmap), ReplayTreatment::NotRecorded);
    EXPECT_EQ(replay_treatment(SYS_futex), ReplayTreatment::NotRecorded);
}

TEST(RecordedSyscalls, TrappedSetIsExactlyTheRecordedOnes) {
    for (int number : recorded_syscalls()) {
        EXPECT_NE(replay_treatment(number), ReplayTreatment::NotRecorded) << number;
    }
    EXPECT_TRUE(recorded_syscalls().contains(SYS_read));
    EXPECT_FALSE(recorded_syscalls().contains(SYS_brk));
}

} // namespace
} // namespace hermit::replay
