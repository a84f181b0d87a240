#include "tracer/virt/FileTimes.h"

#include <gtest/gtest.h>

namespace hermit::tracer::virt {
namespace {

constexpr int64_t kRunStart = 2'000'000'000'000'000'000LL; // 2033
constexpr int64_t kBefore = kRunStart - 86'400'000'000'000LL;

class FileTimesTest : public ::testing::Test {
protected:
    VirtualClock clock_;
    FileTimes times_{clock_, kRunStart};
};

TEST_F(FileTimesTest, InputsShowTheirRealTimesWithAccessAsModification) {
    const FileTimeSet shown = times_.shown(1, 10, {kBefore + 3, kBefore + 1, kBefore + 2, kBefore}, true);
    EXPECT_EQ(shown.modify_ns, kBefore + 1);
    EXPECT_EQ(shown.change_ns, kBefore + 2);
    EXPECT_EQ(shown.birth_ns, kBefore);
    EXPECT_EQ(shown.access_ns, kBefore + 1);
}

TEST_F(FileTimesTest, ChangesOfTheRunGetTheVirtualTimeTheyAreFirstSeenAt) {
    clock_.tick();
    const int64_t first_seen = clock_.file_time_ns();
    const FileTimeSet made =
        times_.shown(1, 11, {kRunStart + 7, kRunStart + 7, kRunStart + 7, kRunStart + 7}, true);
    EXPECT_EQ(made.modify_ns, first_seen);
    EXPECT_EQ(made.birth_ns, first_seen);
    clock_.tick();
    EXPECT_EQ(
        times_.shown(1, 11, {kRunStart + 7, kRunStart + 7, kRunStart + 7, kRunStart + 7}, true).modify_ns,
        first_seen)
        << "unchanged, it keeps its time";

    // Renamed: the change time moves, the modification time stays.
    const FileTimeSet renamed = times_.shown(1, 11, {kRunStart + 7, kRunStart + 7, kRunStart + 9, 0}, true);
    EXPECT_EQ(renamed.modify_ns, first_seen);
    EXPECT_EQ(renamed.change_ns, clock_.file_time_ns());

    // Written again: a new modification, later than the first; its birth stays.
    clock_.tick();
    const FileTimeSet written =
        times_.shown(1, 11, {kRunStart + 12, kRunStart + 12, kRunStart + 12, 0}, true);
    EXPECT_EQ(written.modify_ns, clock_.file_time_ns());
    EXPECT_GT(written.modify_ns, first_seen);
    EXPECT_EQ(written.birth_ns, first_seen);
}

TEST_F(FileTimesTest, AnInputTheRunWritesKeepsItsBirthAndGetsAVirtualModification) {
    const FileTimeSet shown =
        times_.shown(1, 12, {kRunStart + 5, kRunStart + 5, kRunStart + 5, kBefore}, true);
    EXPECT_EQ(shown.birth_ns, kBefore);
    EXPECT_EQ(shown.modify_ns, clock_.file_time_ns());
}

TEST_F(FileTimesTest, TimesTheGuestSetAreShownAsSetUntilTheFileChangesAgain) {
    clock_.tick();
    times_.on_times_set(1, 13, kBefore, kBefore + 1);
    FileTimeSet shown = times_.shown(1, 13, {kBefore, kBefore + 1, kRunStart + 3, 0}, true);
    EXPECT_EQ(shown.access_ns, kBefore);
    EXPECT_EQ(shown.modify_ns, kBefore + 1);
    EXPECT_EQ(shown.change_ns, clock_.file_time_ns());

    // Written since: a modification of the run.
    clock_.tick();
    shown = times_.shown(1, 13, {kRunStart + 4, kRunStart + 4, kRunStart + 4, 0}, true);
    EXPECT_EQ(shown.modify_ns, clock_.file_time_ns());
}

TEST_F(FileTimesTest, PipesSocketsAndTerminalsKeepTheVirtualTimeTheyAreFirstSeenAt) {
    clock_.tick();
    const int64_t first_seen = clock_.file_time_ns();
    EXPECT_EQ(times_.shown(2, 5, {kBefore, kBefore, kBefore, kBefore}, false).modify_ns, first_seen)
        << "made before the run, still not an input";
    clock_.tick();
    const FileTimeSet written = times_.shown(2, 5, {kRunStart + 1, kRunStart + 1, kBefore, 0}, false);
    EXPECT_EQ(written.modify_ns, first_seen) << "a terminal's time moves with its I/O, as timing has it";
    EXPECT_EQ(written.birth_ns, first_seen);
}

TEST_F(FileTimesTest, AFileTheGuestInheritsOpenIsNotAnInput) {
    times_.not_input(3, 1);
    EXPECT_EQ(times_.shown(3, 1, {kBefore, kBefore, kBefore, kBefore}, true).modify_ns,
              clock_.file_time_ns());
}

TEST(VirtualClockSteps, FileTimesStepForwardOnlyAndTheGuestsClocksStay) {
    VirtualClock clock;
    const int64_t monotonic = clock.monotonic_ns();
    clock.saw_file_time(kBefore);
    EXPECT_EQ(clock.file_time_ns(), kBefore);
    EXPECT_EQ(clock.realtime_ns(), VirtualClock::kDefaultEpochNs);
    clock.saw_file_time(kBefore - 5);
    EXPECT_EQ(clock.file_time_ns(), kBefore);
    clock.tick();
    EXPECT_EQ(clock.file_time_ns(), kBefore + static_cast<int64_t>(VirtualClock::kEventStepNs));
    EXPECT_EQ(clock.monotonic_ns(), monotonic + static_cast<int64_t>(VirtualClock::kEventStepNs));
}

} // namespace
} // namespace hermit::tracer::virt
