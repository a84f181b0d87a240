// hermit_gui_bench: how long the GUI takes to open a recording of a million events (read, validate and
// decode every frame, then build the timeline), the work done off the GUI thread before anything is drawn.
// Writes the recording into a temporary directory first; prints the seconds on stdout.

#include "gui/LoadedRecording.h"

#include "formats/Recording.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace {

constexpr uint64_t kDefaultEvents = 1'000'000;
constexpr int32_t kThreads = 8;
constexpr uint64_t kEventsPerSlice = 10; // a Schedule event, then syscalls of the thread holding the token

void write_bench_recording(const std::filesystem::path& directory, uint64_t count) {
    hermit::RecordingMeta meta;
    meta.name = "gui-bench";
    meta.argv = {"gui-bench"};
    hermit::RecordingWriter writer(directory, meta);
    int32_t tid = 1;
    for (uint64_t i = 0; i < count; ++i) {
        hermit::Event event;
        event.time = i * 100;
        event.pid = 1;
        if (i % kEventsPerSlice == 0) {
            const int32_t previous = tid;
            tid = static_cast<int32_t>((i / kEventsPerSlice) % kThreads) + 1;
            event.payload = hermit::ScheduleEvent{previous, hermit::ScheduleEvent::Reason::Yield};
        } else {
            event.payload = hermit::SyscallEvent{202, {0x7f0000001000 + i, 0x80, 1, 0, 0, 0}, 0, false, {}};
        }
        event.tid = tid;
        writer.append(event);
    }
    writer.finish(0, count * 100);
}

} // namespace

int main(int argc, char** argv) {
    const uint64_t count = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : kDefaultEvents;
    std::string pattern = (std::filesystem::temp_directory_path() / "hermit-gui-bench-XXXXXX").string();
    if (!mkdtemp(pattern.data())) {
        std::perror("mkdtemp");
        return 1;
    }
    const std::filesystem::path root(pattern);
    const auto directory = root / "recording";
    write_bench_recording(directory, count);

    const auto start = std::chrono::steady_clock::now();
    const auto recording = hermit::gui::load_recording(directory);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    const auto summarize_start = std::chrono::steady_clock::now();
    for (size_t lane = 0; lane < recording->timeline.lanes().size(); ++lane) {
        recording->timeline.summarize(lane, static_cast<double>(recording->timeline.begin_time()),
                                      static_cast<double>(recording->timeline.end_time()), 1400);
    }
    const double paint_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - summarize_start).count();

    std::printf("opened %zu events in %zu lanes: %.3f s (read + timeline); one full-width frame of column "
                "summaries: %.4f s\n",
                recording->events.size(), recording->timeline.lanes().size(), seconds, paint_seconds);
    std::filesystem::remove_all(root);
    return 0;
}
