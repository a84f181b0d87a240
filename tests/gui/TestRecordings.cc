#include "TestRecordings.h"

#include "formats/Recording.h"

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace hermit::gui::testing {

const std::vector<ScheduledSlice>& four_thread_schedule() {
    static const std::vector<ScheduledSlice> schedule{{10, 10, 0, 10},  {10, 12, 10, 20}, {11, 11, 20, 40},
                                                      {11, 13, 40, 50}, {10, 10, 50, 60}, {10, 12, 60, 65},
                                                      {11, 11, 65, 70}, {11, 13, 70, 100}};
    return schedule;
}

std::vector<Event> four_thread_events() {
    std::vector<Event> events;
    int32_t previous = 0;
    std::vector<int32_t> started{10};
    for (const ScheduledSlice& slice : four_thread_schedule()) {
        if (std::find(started.begin(), started.end(), slice.tid) == started.end()) {
            started.push_back(slice.tid);
            events.push_back(
                Event{slice.begin, slice.tid, slice.pid, ThreadStartEvent{10, slice.tid == slice.pid}});
        }
        const auto reason = previous == 0 ? ScheduleEvent::Reason::Started : ScheduleEvent::Reason::Yield;
        events.push_back(Event{slice.begin, slice.tid, slice.pid, ScheduleEvent{previous, reason}});
        events.push_back(Event{slice.begin + 1, slice.tid, slice.pid,
                               SyscallEvent{202, {1, 2, 3}, 0, false, {}, false, {}}});
        if (slice.tid == 11 && slice.begin == 20) {
            events.push_back(Event{22, 11, 11, ExecEvent{"/bin/true", {"true"}, "00"}});
        }
        if (slice.tid == 11 && slice.begin == 65) {
            events.push_back(Event{66, 11, 11, SignalEvent{SIGUSR1, 0, 10, false}});
        }
        previous = slice.tid;
    }
    events.push_back(Event{100, 13, 11, ThreadExitEvent{0, false}});
    return events;
}

TemporaryDirectory::TemporaryDirectory() {
    std::string pattern = (std::filesystem::temp_directory_path() / "hermit-gui-test-XXXXXX").string();
    if (!mkdtemp(pattern.data())) {
        throw std::runtime_error("mkdtemp failed");
    }
    path_ = pattern;
}

TemporaryDirectory::~TemporaryDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
}

void write_recording(const std::filesystem::path& directory, const std::vector<Event>& events) {
    RecordingMeta meta;
    meta.name = "gui-test";
    meta.argv = {"gui-test"};
    RecordingWriter writer(directory, meta);
    for (const Event& event : events) {
        writer.append(event);
    }
    writer.finish(0, events.empty() ? 0 : events.back().time);
}

} // namespace hermit::gui::testing
