#pragma once
// Recordings with a known schedule, written with the real RecordingWriter into a temporary directory.
//
// four_thread_events(): two processes (pid 10 with tids 10 and 12, pid 11 with tids 11 and 13) and this
// schedule of the run token, times in logical ns:
//   [0,10) tid 10   [10,20) tid 12   [20,40) tid 11   [40,50) tid 13
//   [50,60) tid 10  [60,65) tid 12   [65,70) tid 11   [70,100) tid 13 (exits at 100)
// Each slice starts with its Schedule event and holds one syscall 1 ns later; tid 11 also execs at 22 and
// gets SIGUSR1 at 66; each thread but 10 starts with a ThreadStart right before its first slice.

#include "formats/Event.h"

#include <filesystem>
#include <vector>

namespace hermit::gui::testing {

struct ScheduledSlice {
    int32_t pid;
    int32_t tid;
    uint64_t begin;
    uint64_t end;
};

const std::vector<ScheduledSlice>& four_thread_schedule();
std::vector<Event> four_thread_events();

// A fresh empty directory under the system temp directory, removed when the object goes.
class TemporaryDirectory {
public:
    TemporaryDirectory();
    ~TemporaryDirectory();
    TemporaryDirectory(const TemporaryDirectory&) = delete;
    TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

// Writes the events as a finished recording in `directory` (which must not exist yet).
void write_recording(const std::filesystem::path& directory, const std::vector<Event>& events);

} // namespace hermit::gui::testing
