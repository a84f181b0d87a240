#include "tracer/SchedulePolicies.h"

#include "formats/Error.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace hermit::tracer {
namespace {

// Drives a policy through `steps` scheduling points with a fixed set of runnable threads, the chosen
// thread becoming the current one, and returns the choices.
std::vector<int32_t> drive(SchedulePolicy& policy, const std::vector<int32_t>& runnable, int steps) {
    for (int32_t tid : runnable) {
        policy.on_thread_start(tid);
    }
    std::vector<int32_t> choices;
    SchedulingPoint point;
    for (int step = 0; step < steps; ++step) {
        int32_t chosen = policy.choose(point, runnable);
        choices.push_back(chosen);
        point.current_tid = chosen;
        point.current_runnable = true;
        point.reason = ScheduleEvent::Reason::Yield;
        point.event_index = static_cast<uint64_t>(step + 1);
    }
    return choices;
}

std::vector<int32_t> drive_options(const SchedulePolicyOptions& options, int steps) {
    auto policy = make_schedule_policy(options);
    return drive(*policy, {1, 2, 3, 4}, steps);
}

TEST(RoundRobinPolicyTest, RotatesInAscendingOrderAndWraps) {
    RoundRobinPolicy policy;
    EXPECT_EQ(drive(policy, {3, 5, 9}, 7), (std::vector<int32_t>{3, 5, 9, 3, 5, 9, 3}));
}

TEST(RoundRobinPolicyTest, YieldingThreadGivesWayAndFinishedThreadIsSkipped) {
    RoundRobinPolicy policy;
    SchedulingPoint point{5, true, ScheduleEvent::Reason::Yield, 10};
    EXPECT_EQ(policy.choose(point, {3, 5, 9}), 9);
    point = {9, false, ScheduleEvent::Reason::Exited, 11};
    EXPECT_EQ(policy.choose(point, {3, 5}), 3);
    point = {5, true, ScheduleEvent::Reason::Yield, 12};
    EXPECT_EQ(policy.choose(point, {5}), 5);
}

TEST(RandomPolicyTest, SameSeedGivesSameChoicesAndOtherSeedsDiffer) {
    SchedulePolicyOptions options{"random", 17, 3, 1000};
    auto first = drive_options(options, 200);
    EXPECT_EQ(first, drive_options(options, 200));
    options.seed = 18;
    EXPECT_NE(first, drive_options(options, 200));
}

TEST(RandomPolicyTest, ChoosesEveryThreadRoughlyEvenly) {
    auto choices = drive_options({"random", 5, 3, 1000}, 4000);
    std::map<int32_t, int> counts;
    for (int32_t tid : choices) {
        ++counts[tid];
    }
    ASSERT_EQ(counts.size(), 4u);
    for (auto& [tid, count] : counts) {
        // Expected 1000 each; a binomial deviation of 200 is more than six standard deviations.
        EXPECT_GT(count, 800) << "tid " << tid;
        EXPECT_LT(count, 1200) << "tid " << tid;
    }
}

TEST(PctPolicyTest, SameSeedGivesSameScheduleAndSeedsVaryTheFirstThread) {
    SchedulePolicyOptions options{"pct", 3, 3, 50};
    EXPECT_EQ(drive_options(options, 100), drive_options(options, 100));
    std::set<int32_t> first_choices;
    for (uint64_t seed = 1; seed <= 64; ++seed) {
        options.seed = seed;
        first_choices.insert(drive_options(options, 1).front());
    }
    EXPECT_EQ(first_choices.size(), 4u);
}

TEST(PctPolicyTest, PrioritiesAreDistinctAndAtLeastDepth) {
    PctPolicy policy(9, 3, 100);
    std::set<int64_t> priorities;
    for (int32_t tid = 1; tid <= 6; ++tid) {
        policy.on_thread_start(tid);
    }
    for (int32_t tid = 1; tid <= 6; ++tid) {
        EXPECT_GE(policy.priority(tid), 3);
        priorities.insert(policy.priority(tid));
    }
    EXPECT_EQ(priorities.size(), 6u);
}

TEST(PctPolicyTest, DepthOneNeverSwitchesAwayFromTheHighestRunnableThread) {
    for (uint64_t seed = 1; seed <= 20; ++seed) {
        PctPolicy policy(seed, 1, 100);
        EXPECT_TRUE(policy.change_points().empty());
        auto choices = drive(policy, {1, 2, 3}, 300);
        EXPECT_EQ(std::set<int32_t>(choices.begin(), choices.end()).size(), 1u) << "seed " << seed;
    }
}

TEST(PctPolicyTest, HighestThreadExitingHandsOverToTheNextHighest) {
    PctPolicy policy(4, 1, 100);
    auto first = drive(policy, {1, 2, 3}, 1).front();
    policy.on_thread_exit(first);
    std::vector<int32_t> rest;
    for (int32_t tid : {1, 2, 3}) {
        if (tid != first) {
            rest.push_back(tid);
        }
    }
    int32_t second = policy.choose({first, false, ScheduleEvent::Reason::Exited, 1}, rest);
    int32_t other = second == rest[0] ? rest[1] : rest[0];
    EXPECT_GT(policy.priority(second), policy.priority(other));
}

TEST(PctPolicyTest, DepthTwoSwitchesExactlyOnceAtTheChangePoint) {
    for (uint64_t seed = 1; seed <= 20; ++seed) {
        PctPolicy policy(seed, 2, 100);
        ASSERT_EQ(policy.change_points().size(), 1u);
        const uint64_t change_point = policy.change_points().front();
        EXPECT_GE(change_point, 1u);
        EXPECT_LE(change_point, 100u);
        auto choices = drive(policy, {1, 2, 3}, 200);
        int switches = 0;
        for (size_t index = 1; index < choices.size(); ++index) {
            if (choices[index] != choices[index - 1]) {
                ++switches;
                // Scheduling point number index+1 (1-based) made the change.
                EXPECT_EQ(index + 1, change_point) << "seed " << seed;
            }
        }
        // At the first point no thread is running yet, so a change point there demotes nobody.
        EXPECT_EQ(switches, change_point == 1 ? 0 : 1) << "seed " << seed;
        if (change_point > 1) {
            EXPECT_EQ(policy.priority(choices.front()), 1) << "seed " << seed;
        }
    }
}

TEST(PctPolicyTest, ChangePointsAreDistinctSortedAndInRange) {
    PctPolicy policy(11, 6, 20);
    const auto& points = policy.change_points();
    ASSERT_EQ(points.size(), 5u);
    for (size_t index = 0; index < points.size(); ++index) {
        EXPECT_GE(points[index], 1u);
        EXPECT_LE(points[index], 20u);
        if (index > 0) {
            EXPECT_LT(points[index - 1], points[index]);
        }
    }
}

TEST(MakeSchedulePolicyTest, NamesSelectPoliciesAndUnknownNamesFail) {
    EXPECT_NE(dynamic_cast<RoundRobinPolicy*>(make_schedule_policy({"none", 1, 3, 10}).get()), nullptr);
    EXPECT_NE(dynamic_cast<RandomPolicy*>(make_schedule_policy({"random", 1, 3, 10}).get()), nullptr);
    EXPECT_NE(dynamic_cast<PctPolicy*>(make_schedule_policy({"pct", 1, 3, 10}).get()), nullptr);
    EXPECT_THROW(make_schedule_policy({"fair", 1, 3, 10}), Error);
}

} // namespace
} // namespace hermit::tracer
