#include "TestRecordings.h"

#include "gui/LoadedRecording.h"
#include "gui/TimelineModel.h"

#include <gtest/gtest.h>

#include <csignal>

namespace hermit::gui {
namespace {

using testing::four_thread_events;
using testing::four_thread_schedule;

class TimelineModelTest : public ::testing::Test {
protected:
    void SetUp() override {
        testing::write_recording(directory_.path() / "rec", four_thread_events());
        recording_ = load_recording(directory_.path() / "rec");
    }
    const TimelineModel& model() const { return recording_->timeline; }
    size_t lane(int32_t tid) const { return model().lane_of_tid(tid).value(); }

    testing::TemporaryDirectory directory_;
    std::shared_ptr<const LoadedRecording> recording_;
};

TEST_F(TimelineModelTest, LoadsEveryEventOfTheRecording) {
    EXPECT_EQ(recording_->events.all(), four_thread_events());
    EXPECT_EQ(recording_->meta.event_count, four_thread_events().size());
    EXPECT_EQ(model().event_count(), four_thread_events().size());
    EXPECT_EQ(model().begin_time(), 0u);
    EXPECT_EQ(model().end_time(), 100u);
}

TEST_F(TimelineModelTest, OneLanePerThreadOrderedByProcessThenTid) {
    ASSERT_EQ(model().lanes().size(), 4u);
    const std::vector<std::pair<int32_t, int32_t>> expected{{10, 10}, {10, 12}, {11, 11}, {11, 13}};
    for (size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(model().lanes()[i].pid, expected[i].first) << "lane " << i;
        EXPECT_EQ(model().lanes()[i].tid, expected[i].second) << "lane " << i;
    }
    EXPECT_EQ(model().lanes()[1].name, "pid 10 / tid 12");
    ASSERT_EQ(model().processes().size(), 2u);
    EXPECT_EQ(model().processes()[0].pid, 10);
    EXPECT_EQ(model().processes()[0].lanes, (std::vector<size_t>{0, 1}));
    EXPECT_EQ(model().processes()[1].lanes, (std::vector<size_t>{2, 3}));
}

TEST_F(TimelineModelTest, SlicesFollowTheRunToken) {
    std::map<int32_t, std::vector<std::pair<uint64_t, uint64_t>>> expected;
    for (const auto& slice : four_thread_schedule()) {
        expected[slice.tid].emplace_back(slice.begin, slice.end);
    }
    for (const auto& [tid, slices] : expected) {
        const ThreadLane& thread = model().lanes()[lane(tid)];
        ASSERT_EQ(thread.slices.size(), slices.size()) << "tid " << tid;
        for (size_t i = 0; i < slices.size(); ++i) {
            EXPECT_EQ(thread.slices[i].begin, slices[i].first) << "tid " << tid << " slice " << i;
            EXPECT_EQ(thread.slices[i].end, slices[i].second) << "tid " << tid << " slice " << i;
            const Event& schedule = recording_->events.at(thread.slices[i].event_index);
            EXPECT_TRUE(std::holds_alternative<ScheduleEvent>(schedule.payload));
            EXPECT_EQ(schedule.tid, tid);
        }
    }
}

TEST_F(TimelineModelTest, MarksLandInTheLaneOfTheirThread) {
    for (int32_t tid : {10, 11, 12, 13}) {
        EXPECT_EQ(model().lanes()[lane(tid)].marks_of(MarkKind::Syscall).size(), 2u) << "tid " << tid;
    }
    const ThreadLane& eleven = model().lanes()[lane(11)];
    ASSERT_EQ(eleven.marks_of(MarkKind::Signal).size(), 1u);
    EXPECT_EQ(eleven.marks_of(MarkKind::Signal)[0].time, 66u);
    EXPECT_EQ(
        std::get<SignalEvent>(recording_->events.at(eleven.marks_of(MarkKind::Signal)[0].event_index).payload)
            .number,
        SIGUSR1);
    EXPECT_EQ(eleven.marks_of(MarkKind::Exec).size(), 1u);
    EXPECT_EQ(eleven.marks_of(MarkKind::ThreadStart).size(), 1u);
    EXPECT_EQ(model().lanes()[lane(10)].marks_of(MarkKind::ThreadStart).size(), 0u);
    EXPECT_EQ(model().lanes()[lane(13)].marks_of(MarkKind::ThreadExit).size(), 1u);
    EXPECT_EQ(model().lanes()[lane(12)].marks_of(MarkKind::Signal).size(), 0u);
    EXPECT_EQ(model().lanes()[lane(10)].mark_count(), 2u);
    EXPECT_EQ(model().lanes()[lane(11)].mark_count(), 5u);
}

TEST_F(TimelineModelTest, ColumnCoverageMatchesTheSchedule) {
    // Ten columns of 10 ns each.
    const std::map<int32_t, std::vector<float>> expected{
        {10, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0}},
        {12, {0, 1, 0, 0, 0, 0, 0.5, 0, 0, 0}},
        {11, {0, 0, 1, 1, 0, 0, 0.5, 0, 0, 0}},
        {13, {0, 0, 0, 0, 1, 0, 0, 1, 1, 1}},
    };
    std::vector<float> total(10, 0);
    for (const auto& [tid, coverage] : expected) {
        const auto columns = model().summarize(lane(tid), 0, 100, 10);
        ASSERT_EQ(columns.size(), 10u);
        for (size_t c = 0; c < 10; ++c) {
            EXPECT_FLOAT_EQ(columns[c].coverage, coverage[c]) << "tid " << tid << " column " << c;
            EXPECT_EQ(columns[c].has_slice, coverage[c] > 0) << "tid " << tid << " column " << c;
            total[c] += columns[c].coverage;
        }
    }
    for (size_t c = 0; c < 10; ++c) {
        EXPECT_FLOAT_EQ(total[c], 1) << "one thread holds the token at any time, column " << c;
    }
    EXPECT_DOUBLE_EQ(model().covered_time(lane(11), 0, 100), 25);
    EXPECT_DOUBLE_EQ(model().covered_time(lane(11), 30, 67.5), 12.5);
}

TEST_F(TimelineModelTest, ColumnsCountMarksAndShowTheStrongest) {
    const auto columns = model().summarize(lane(11), 0, 100, 10);
    // Column 2 [20,30): ThreadStart at 20, syscall at 21, exec at 22.
    EXPECT_EQ(columns[2].mark_count, 3u);
    EXPECT_EQ(columns[2].strongest_mark, MarkKind::ThreadStart);
    // Column 6 [60,70): syscall at 66 and SIGUSR1 at 66.
    EXPECT_EQ(columns[6].mark_count, 2u);
    EXPECT_EQ(columns[6].strongest_mark, MarkKind::Signal);
    EXPECT_EQ(columns[0].mark_count, 0u);
    // A mark at the very end of the range is in the last column.
    EXPECT_EQ(model().summarize(lane(13), 0, 100, 10)[9].mark_count, 1u);
}

TEST_F(TimelineModelTest, ZoomedColumnsSplitASlice) {
    // [60,70) in 4 columns: tid 12 holds [60,65), tid 11 [65,70).
    const auto twelve = model().summarize(lane(12), 60, 70, 4);
    EXPECT_FLOAT_EQ(twelve[0].coverage, 1);
    EXPECT_FLOAT_EQ(twelve[1].coverage, 1);
    EXPECT_FLOAT_EQ(twelve[2].coverage, 0);
    const auto eleven = model().summarize(lane(11), 60, 70, 4);
    EXPECT_FLOAT_EQ(eleven[2].coverage, 1);
    EXPECT_FLOAT_EQ(eleven[3].coverage, 1);
}

TEST_F(TimelineModelTest, EventAtPrefersNearbyMarksThenTheSlice) {
    // Near the syscall at 51 in tid 10's slice [50,60).
    const auto near_mark = model().event_at(lane(10), 50.5, 51.6);
    ASSERT_TRUE(near_mark);
    EXPECT_TRUE(std::holds_alternative<SyscallEvent>(recording_->events.at(*near_mark).payload));
    EXPECT_EQ(recording_->events.at(*near_mark).time, 51u);
    // In the middle of the slice, far from marks: the Schedule event that began it.
    const auto in_slice = model().event_at(lane(10), 55, 56);
    ASSERT_TRUE(in_slice);
    EXPECT_EQ(*in_slice, model().lanes()[lane(10)].slices[1].event_index);
    // Where the thread does not run.
    EXPECT_FALSE(model().event_at(lane(10), 30, 31));
}

TEST_F(TimelineModelTest, PositionOfAnEventIsItsLaneAndTime) {
    for (uint64_t i = 0; i < recording_->events.size(); ++i) {
        const EventPosition position = model().position_of(i);
        EXPECT_EQ(model().lanes()[position.lane].tid, recording_->events.at(i).tid);
        EXPECT_EQ(position.time, recording_->events.at(i).time);
    }
}

TEST_F(TimelineModelTest, EventOrderAxisUsesEventIndices) {
    const TimelineModel by_index(recording_->columns, TimeAxis::EventOrder);
    EXPECT_EQ(by_index.axis(), TimeAxis::EventOrder);
    EXPECT_EQ(by_index.end_time(), recording_->events.size() - 1);
    const ThreadLane& ten = by_index.lanes()[by_index.lane_of_tid(10).value()];
    // tid 10 holds the token from event 0 (its first Schedule) to event 3 (tid 12's Schedule), then 12..14.
    ASSERT_EQ(ten.slices.size(), 2u);
    EXPECT_EQ(ten.slices[0].begin, 0u);
    EXPECT_EQ(ten.slices[0].end, 3u);
    EXPECT_EQ(ten.slices[1].begin, 12u);
    EXPECT_EQ(ten.slices[1].end, 14u);
    EXPECT_EQ(by_index.position_of(18).time, 18u);
}

TEST(TimelineModelWithoutSchedule, TheFirstThreadHoldsTheToken) {
    const std::vector<Event> events{Event{5, 1, 1, SyscallEvent{1, {}, 0, false, {}, false, {}}},
                                    Event{25, 1, 1, ThreadExitEvent{0, true}}};
    const TimelineModel model(columns_of_events(events));
    ASSERT_EQ(model.lanes().size(), 1u);
    ASSERT_EQ(model.lanes()[0].slices.size(), 1u);
    EXPECT_EQ(model.lanes()[0].slices[0].begin, 5u);
    EXPECT_EQ(model.lanes()[0].slices[0].end, 25u);
}

TEST(TimelineModelWithoutEvents, HasNoLanes) {
    const TimelineModel model(EventColumns{});
    EXPECT_TRUE(model.lanes().empty());
    EXPECT_LT(model.begin_time(), model.end_time());
}

} // namespace
} // namespace hermit::gui
