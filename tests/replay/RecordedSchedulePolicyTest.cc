#include "replay/RecordedSchedulePolicy.h"

#include "formats/Error.h"

#include <gtest/gtest.h>

namespace hermit::replay {
namespace {

Event schedule_to(int32_t tid, int32_t previous) {
    return Event{0, tid, 1, ScheduleEvent{previous}};
}
Event syscall_of(int32_t tid) {
    return Event{0, tid, 1, SyscallEvent{0, {}, 0, false, {}, false, {}}};
}

TEST(RecordedSchedulePolicy, FollowsTheNextRecordedScheduleLookingPastThreadExits) {
    ReplayLog log({Event{0, 2, 1, ThreadExitEvent{0, false}}, schedule_to(3, 2)});
    RecordedSchedulePolicy policy(log);
    EXPECT_EQ(policy.choose({2, false, ScheduleEvent::Reason::Exited, 0}, {1, 3}), 3);
}

TEST(RecordedSchedulePolicy, KeepsTheCurrentThreadWhenTheRecordingWentOnWithIt) {
    ReplayLog log({syscall_of(1)});
    RecordedSchedulePolicy policy(log);
    EXPECT_EQ(policy.choose({1, true, ScheduleEvent::Reason::Yield, 0}, {1, 2}), 1);
}

TEST(RecordedSchedulePolicy, RecordedThreadThatCannotRunIsADesync) {
    ReplayLog log({schedule_to(4, 1)});
    RecordedSchedulePolicy policy(log);
    try {
        policy.choose({1, true, ScheduleEvent::Reason::Yield, 0}, {1, 2});
        FAIL() << "no desync";
    } catch (const Error& error) {
        EXPECT_EQ(error.code(), ErrorCode::ReplayDesync);
        EXPECT_EQ(error.exit_status(), 4);
        EXPECT_NE(std::string(error.what()).find("event 0 (thread 4)"), std::string::npos) << error.what();
    }
}

} // namespace
} // namespace hermit::replay
