// ForcedSchedulePolicy: follows its choice list, then the fallback, and logs every decision.
#include "replay/ForcedSchedulePolicy.h"
#include "tracer/SchedulePolicies.h"

#include <gtest/gtest.h>

namespace hermit::replay {
namespace {

tracer::SchedulingPoint point_of(int32_t current_tid, uint64_t event_index) {
    return {current_tid, true, ScheduleEvent::Reason::Yield, event_index};
}

TEST(ForcedSchedulePolicy, FollowsTheListThenTheFallback) {
    ForcedSchedulePolicy policy({3, 3}, std::make_unique<tracer::RoundRobinPolicy>());
    const std::vector<int32_t> runnable{1, 2, 3};
    EXPECT_EQ(policy.choose(point_of(1, 10), runnable), 3);
    EXPECT_EQ(policy.choose(point_of(3, 20), runnable), 3);
    EXPECT_EQ(policy.choose(point_of(3, 30), runnable), 1); // round-robin after thread 3
    ASSERT_EQ(policy.decisions().size(), 3u);
    EXPECT_EQ(policy.decisions()[1].event_index, 20u);
    EXPECT_EQ(policy.decisions()[1].current_tid, 3);
    EXPECT_EQ(policy.decisions()[2].runnable, runnable);
    EXPECT_FALSE(policy.first_unfollowed());
}

TEST(ForcedSchedulePolicy, StopsFollowingAtAChoiceThatIsNotRunnable) {
    ForcedSchedulePolicy policy({2, 4, 2}, std::make_unique<tracer::RoundRobinPolicy>());
    EXPECT_EQ(policy.choose(point_of(1, 1), {1, 2}), 2);
    EXPECT_EQ(policy.choose(point_of(2, 2), {1, 2}), 1); // 4 is not runnable: round-robin decides
    EXPECT_EQ(policy.choose(point_of(1, 3), {1, 3}), 3); // and keeps deciding
    ASSERT_TRUE(policy.first_unfollowed());
    EXPECT_EQ(*policy.first_unfollowed(), 1u);
}

TEST(ForcedSchedulePolicy, ShowsEachDecisionToTheObserverBeforeChoosing) {
    ForcedSchedulePolicy policy({}, std::make_unique<tracer::RoundRobinPolicy>());
    std::vector<uint64_t> seen;
    policy.set_observer([&](uint64_t decision, const ScheduleDecision& about) {
        seen.push_back(decision);
        EXPECT_EQ(about.chosen, 0);
    });
    policy.choose(point_of(1, 5), {1, 2});
    policy.choose(point_of(2, 6), {1, 2});
    EXPECT_EQ(seen, (std::vector<uint64_t>{0, 1}));
}

} // namespace
} // namespace hermit::replay
