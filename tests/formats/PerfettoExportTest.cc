// The Perfetto/Chrome trace JSON: parsed back with nlohmann and checked for its track structure.
#include "TestRecordings.h"

#include "formats/Error.h"
#include "formats/PerfettoExport.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>

namespace hermit {
namespace {

std::vector<Event> two_process_events() {
    auto events = test::every_kind_of_event();
    events.push_back({120, 7, 7, ScheduleEvent{1, ScheduleEvent::Reason::Blocked}});
    events.push_back({130, 7, 7, SyscallEvent{60, {0}, 0, false, {}, false, {}}});
    return events;
}

TEST(PerfettoExport, OneTrackPerThreadAndOnePidPerProcess) {
    const auto events = two_process_events();
    auto meta = test::sample_meta("export-1");
    meta.guest_duration_ns = 200;
    auto trace =
        perfetto_trace(meta, events, [](int n) { return n == 60 ? std::string("exit") : std::string(); });
    // Round trip through text, as a viewer would read it.
    auto parsed = nlohmann::json::parse(trace.dump());
    ASSERT_TRUE(parsed["traceEvents"].is_array());

    std::set<std::pair<int, int>> named_threads;
    std::set<int> named_processes;
    std::vector<nlohmann::json> slices;
    std::vector<nlohmann::json> instants;
    for (const auto& event : parsed["traceEvents"]) {
        const std::string phase = event["ph"];
        if (phase == "M" && event["name"] == "thread_name") {
            named_threads.insert({event["pid"].get<int>(), event["tid"].get<int>()});
        } else if (phase == "M" && event["name"] == "process_name") {
            named_processes.insert(event["pid"].get<int>());
        } else if (phase == "X") {
            slices.push_back(event);
        } else if (phase == "i") {
            instants.push_back(event);
        }
    }
    EXPECT_EQ(named_threads, (std::set<std::pair<int, int>>{{1, 1}, {1, 2}, {7, 7}}));
    EXPECT_EQ(named_processes, (std::set<int>{1, 7}));

    // Schedules at 0 (tid 1), 40 (tid 2), 100 (tid 1), 120 (tid 7); the last slice runs to the exit time.
    ASSERT_EQ(slices.size(), 4u);
    EXPECT_EQ(slices[0]["tid"], 1);
    EXPECT_DOUBLE_EQ(slices[0]["ts"].get<double>(), 0.0);
    EXPECT_DOUBLE_EQ(slices[0]["dur"].get<double>(), 0.04);
    EXPECT_EQ(slices[1]["tid"], 2);
    EXPECT_DOUBLE_EQ(slices[1]["dur"].get<double>(), 0.06);
    EXPECT_EQ(slices[3]["pid"], 7);
    EXPECT_EQ(slices[3]["args"]["reason"], "blocked");
    EXPECT_DOUBLE_EQ(slices[3]["dur"].get<double>(), 0.08);

    // Every non-schedule event is an instant on its thread's track.
    EXPECT_EQ(instants.size(), events.size() - 4);
    bool found_exit = false;
    bool found_unnamed = false;
    for (const auto& instant : instants) {
        EXPECT_TRUE(named_threads.count({instant["pid"].get<int>(), instant["tid"].get<int>()}));
        if (instant["name"] == "exit") {
            found_exit = true;
            EXPECT_EQ(instant["args"]["number"], 60);
        }
        if (instant["name"] == "syscall_318") {
            found_unnamed = true;
            EXPECT_EQ(instant["args"]["args"][0], "0x7ffd0000");
            EXPECT_EQ(instant["args"]["result"], 16);
        }
    }
    EXPECT_TRUE(found_exit);
    EXPECT_TRUE(found_unnamed);
    EXPECT_EQ(parsed["otherData"]["recording"], "export-1");
}

TEST(PerfettoExport, EmptyRecordingGivesAnEmptyTrace) {
    auto trace = perfetto_trace(test::sample_meta("empty-1"), {});
    EXPECT_TRUE(trace["traceEvents"].empty());
}

TEST(PerfettoExport, WritesAFileAndReportsUnwritablePaths) {
    test::TemporaryDirectory temporary;
    auto trace = perfetto_trace(test::sample_meta("w-1"), test::every_kind_of_event());
    write_perfetto_trace(trace, temporary.path() / "trace.json");
    std::ifstream in(temporary.path() / "trace.json");
    EXPECT_EQ(nlohmann::json::parse(in), trace);
    try {
        write_perfetto_trace(trace, temporary.path() / "no-such-dir" / "trace.json");
        FAIL() << "expected E081";
    } catch (const Error& error) {
        EXPECT_EQ(error.code(), ErrorCode::ExportFailed);
    }
}

} // namespace
} // namespace hermit
