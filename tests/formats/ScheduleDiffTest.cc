// diff_events, describe_event and compute_statistics on constructed streams.
#include "TestRecordings.h"

#include "formats/EventDescription.h"
#include "formats/EventStatistics.h"
#include "formats/ScheduleDiff.h"

#include <gtest/gtest.h>

namespace hermit {
namespace {

TEST(ScheduleDiff, IdenticalStreamsHaveNoDivergence) {
    const auto events = test::many_events(1000);
    auto result = diff_events(events, events);
    EXPECT_TRUE(result.identical());
    EXPECT_EQ(result.events_a, 1000u);
    EXPECT_EQ(result.events_b, 1000u);
    ASSERT_EQ(result.threads.size(), 2u);
    EXPECT_EQ(result.threads[0].tid, 1);
    EXPECT_EQ(result.threads[0].events_a, 500u);
    EXPECT_EQ(result.threads[0].events_b, 500u);
}

TEST(ScheduleDiff, LogicalTimeIsNotCompared) {
    auto a = test::every_kind_of_event();
    auto b = a;
    b[3].time += 5;
    EXPECT_TRUE(diff_events(a, b).identical());
}

TEST(ScheduleDiff, ExecveArgumentsAreNotCompared) {
    // Two recordings of one program: the first execve's pointers are in hermit's own (randomized) image.
    const std::vector<Event> a{
        {0, 1, 1, SyscallEvent{59, {0x55a906c6b8e0, 0x55a906c7a4e0}, 0, false, {}, false, {}}},
        {1, 1, 1, SyscallEvent{1, {1, 0x1000, 5}, 5, false, {}, false, {}}}};
    auto b = a;
    std::get<SyscallEvent>(b[0].payload).args = {0x562ae84188e0, 0x562ae84274e0};
    EXPECT_TRUE(diff_events(a, b).identical());
    std::get<SyscallEvent>(b[0].payload).result = -2;
    EXPECT_EQ(diff_events(a, b).divergence->reason, "syscall results differ (0 vs -2)");
    std::get<SyscallEvent>(b[1].payload).args[1] = 0x2000;
    b[0] = a[0];
    EXPECT_EQ(diff_events(a, b).divergence->reason, "syscall arguments differ");
}

TEST(ScheduleDiff, FindsASwappedSchedule) {
    auto a = test::every_kind_of_event();
    auto b = a;
    // Event 4 hands the token to thread 2 in A; in B thread 1 keeps it.
    b[4].tid = 1;
    auto result = diff_events(a, b);
    ASSERT_FALSE(result.identical());
    EXPECT_EQ(result.divergence->index, 4u);
    EXPECT_EQ(result.divergence->reason, "a different thread was scheduled (2 vs 1)");
    EXPECT_EQ(result.divergence->a, a[4]);
    EXPECT_EQ(result.divergence->b, b[4]);
}

TEST(ScheduleDiff, SyscallNumberArgumentsAndResultsCount) {
    auto a = test::every_kind_of_event();
    auto changed = [&](auto mutate) {
        auto b = a;
        mutate(std::get<SyscallEvent>(b[2].payload));
        auto result = diff_events(a, b);
        return result.identical() ? std::string("identical") : result.divergence->reason;
    };
    EXPECT_EQ(changed([](SyscallEvent& s) { s.number = 1; }), "syscall numbers differ (318 vs 1)");
    EXPECT_EQ(changed([](SyscallEvent& s) { s.args[1] = 3; }), "syscall arguments differ");
    EXPECT_EQ(changed([](SyscallEvent& s) { s.result = -11; }), "syscall results differ (16 vs -11)");
    EXPECT_EQ(changed([](SyscallEvent& s) { s.emulated = false; }), "identical");
}

TEST(ScheduleDiff, OtherKindsCompareTheirPayload) {
    auto a = test::every_kind_of_event();
    auto b = a;
    std::get<RdtscEvent>(b[5].payload).value = 1;
    auto result = diff_events(a, b);
    ASSERT_FALSE(result.identical());
    EXPECT_EQ(result.divergence->index, 5u);
    EXPECT_EQ(result.divergence->reason, "rdtsc events differ");
    b = a;
    b[7].payload = ThreadExitEvent{0, false};
    EXPECT_EQ(diff_events(a, b).divergence->reason, "event kinds differ (stdio vs thread_exit)");
}

TEST(ScheduleDiff, OneStreamEndingEarlyDivergesAtItsEnd) {
    auto a = test::every_kind_of_event();
    auto b = a;
    b.resize(7);
    auto result = diff_events(a, b);
    ASSERT_FALSE(result.identical());
    EXPECT_EQ(result.divergence->index, 7u);
    EXPECT_EQ(result.divergence->reason, "run B ended after 7 events");
    EXPECT_TRUE(result.divergence->a.has_value());
    EXPECT_FALSE(result.divergence->b.has_value());
    auto reverse = diff_events(b, a);
    EXPECT_EQ(reverse.divergence->reason, "run A ended after 7 events");
    EXPECT_NE(describe_divergence(*reverse.divergence).find("A: (no event: the run had ended)"),
              std::string::npos);
}

TEST(EventDescription, DescribesEachKindOnOneLine) {
    const auto events = test::every_kind_of_event();
    auto names = [](int number) { return number == 318 ? std::string("getrandom") : std::string(); };
    EXPECT_EQ(describe_event(events[0]), "thread 1: scheduled first");
    EXPECT_EQ(describe_event(events[2], names), "thread 1: syscall 318 getrandom(0x7ffd0000, 0x10, 0x0) = 16 "
                                                "[emulated] [wrote 4 bytes of guest memory]");
    EXPECT_EQ(describe_event(events[2]).substr(0, 32), "thread 1: syscall 318 syscall_31");
    EXPECT_EQ(describe_event(events[4]), "thread 2: scheduled (thread 1 yielded)");
    EXPECT_EQ(describe_event(events[7]), "thread 2: wrote 3 bytes to stdout \"hi\\n\"");
    EXPECT_EQ(describe_event(events[8]),
              "thread 2: signal 11 (code 1, from outside the guest, pid 0), fatal");
    for (const auto& event : events) {
        EXPECT_EQ(describe_event(event).find('\n'), std::string::npos);
    }
}

TEST(EventStatistics, CountsByKindAndThread) {
    auto statistics = compute_statistics(test::every_kind_of_event());
    EXPECT_EQ(statistics.total, 12u);
    EXPECT_EQ(statistics.by_kind["schedule"], 3u);
    EXPECT_EQ(statistics.by_kind["thread_exit"], 2u);
    ASSERT_EQ(statistics.threads.size(), 2u);
    EXPECT_EQ(statistics.threads[0].tid, 1);
    EXPECT_EQ(statistics.threads[0].events, 5u);
    EXPECT_EQ(statistics.threads[0].schedules, 2u);
    EXPECT_EQ(statistics.threads[0].syscalls, 1u);
    EXPECT_EQ(statistics.threads[1].events, 7u);
    EXPECT_EQ(statistics.threads[1].first_time, 30u);
    EXPECT_EQ(statistics.threads[1].last_time, 90u);
}

} // namespace
} // namespace hermit
