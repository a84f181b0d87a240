// hermit_gui_bench: how long the GUI takes to open a recording of a million events, in two steps:
//   load:   the worker-thread part (metadata, summary.hrec, the timeline model), and
//   window: the GUI-thread part (event table and filter over every row, thread list, the first paint of
//           the whole window, offscreen).
// Prints wall-clock and user CPU seconds of each; CPU time is the steadier number on a loaded machine.
// Writes the recording into a temporary directory first (not measured).

#include "gui/LoadedRecording.h"
#include "gui/MainWindow.h"

#include "formats/Recording.h"

#include <QApplication>
#include <QStandardPaths>

#include <sys/resource.h>

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
            event.payload =
                hermit::SyscallEvent{202, {0x7f0000001000 + i, 0x80, 1, 0, 0, 0}, 0, false, {}, false, {}};
        }
        event.tid = tid;
        writer.append(event);
    }
    writer.finish(0, count * 100);
}

double user_cpu_seconds() {
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_utime.tv_sec) + static_cast<double>(usage.ru_utime.tv_usec) / 1e6;
}

// Wall and user CPU seconds since construction.
class Stopwatch {
public:
    double wall() const {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count();
    }
    double cpu() const { return user_cpu_seconds() - cpu_start_; }

private:
    std::chrono::steady_clock::time_point wall_start_ = std::chrono::steady_clock::now();
    double cpu_start_ = user_cpu_seconds();
};

} // namespace

int main(int argc, char** argv) {
    const uint64_t count = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : kDefaultEvents;
    ::setenv("QT_QPA_PLATFORM", "offscreen", 0);
    QApplication application(argc, argv);
    QStandardPaths::setTestModeEnabled(true); // the recent-recordings list goes to a test location

    std::string pattern = (std::filesystem::temp_directory_path() / "hermit-gui-bench-XXXXXX").string();
    if (!mkdtemp(pattern.data())) {
        std::perror("mkdtemp");
        return 1;
    }
    const std::filesystem::path root(pattern);
    const auto directory = root / "recording";
    write_bench_recording(directory, count);

    const Stopwatch load;
    const auto recording = hermit::gui::load_recording(directory);
    const double load_wall = load.wall();
    const double load_cpu = load.cpu();

    hermit::gui::MainWindow window({}, QStringLiteral("hermit"));
    window.resize(1400, 800);
    const Stopwatch show;
    window.setRecording(recording);
    window.show();
    window.grab(); // lays out and paints everything once
    const double show_wall = show.wall();
    const double show_cpu = show.cpu();

    std::printf("opened %llu events in %zu lanes\n"
                "  load (worker):   %.3f s wall, %.3f s user CPU\n"
                "  window (GUI):    %.3f s wall, %.3f s user CPU\n"
                "  total:           %.3f s wall, %.3f s user CPU\n",
                static_cast<unsigned long long>(recording->events.size()), recording->timeline.lanes().size(),
                load_wall, load_cpu, show_wall, show_cpu, load_wall + show_wall, load_cpu + show_cpu);
    std::filesystem::remove_all(root);
    return 0;
}
