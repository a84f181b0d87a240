#pragma once
// Shared by the formats tests: a temporary directory that removes itself, and event streams that use
// every event kind.

#include "formats/Event.h"
#include "formats/Recording.h"

#include "formats/FileIo.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace hermit::test {

class TemporaryDirectory {
public:
    TemporaryDirectory() {
        std::string pattern = (std::filesystem::temp_directory_path() / "hermit-formats-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr) {
            throw std::runtime_error("mkdtemp failed");
        }
        path_ = pattern;
    }
    ~TemporaryDirectory() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    TemporaryDirectory(const TemporaryDirectory&) = delete;
    TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;

    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

// The bytes RecordingReader::write_file_copy writes for `file`.
inline std::string recorded_copy(const RecordingReader& reader, const RecordedFile& file) {
    UniqueFd copy(
        ::open(std::filesystem::temp_directory_path().c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600));
    if (copy.get() < 0) {
        throw std::runtime_error("cannot create a temporary file");
    }
    reader.write_file_copy(file, copy.get());
    std::string bytes(static_cast<size_t>(::lseek(copy.get(), 0, SEEK_CUR)), '\0');
    if (::pread(copy.get(), bytes.data(), bytes.size(), 0) != static_cast<ssize_t>(bytes.size())) {
        throw std::runtime_error("cannot read a temporary file");
    }
    return bytes;
}

// One event of each kind, on threads 1 and 2 of process 1.
inline std::vector<Event> every_kind_of_event() {
    std::vector<Event> events;
    events.push_back({0, 1, 1, ScheduleEvent{0, ScheduleEvent::Reason::Started}});
    events.push_back({10, 1, 1, ExecEvent{"/bin/true", {"true", "--flag"}, std::string(64, 'a')}});
    events.push_back(
        {20, 1, 1,
         SyscallEvent{318, {0x7ffd0000, 16, 0}, 16, true, {{0x7ffd0000, {1, 2, 3, 4}}}, false, {}}});
    events.push_back({30, 2, 1, ThreadStartEvent{1, false}});
    events.push_back({40, 2, 1, ScheduleEvent{1, ScheduleEvent::Reason::Yield}});
    events.push_back({50, 2, 1, RdtscEvent{123456789, true}});
    events.push_back({60, 2, 1, CpuidEvent{7, 0, 1, 2, 3, 4}});
    events.push_back({70, 2, 1, StdioEvent{1, {'h', 'i', '\n'}}});
    events.push_back({80, 2, 1, SignalEvent{11, 1, 0, true, true, 1000}});
    events.push_back({90, 2, 1, ThreadExitEvent{139, false}});
    events.push_back({100, 1, 1, ScheduleEvent{2, ScheduleEvent::Reason::Exited}});
    events.push_back({110, 1, 1, ThreadExitEvent{0, true}});
    return events;
}

// `count` events alternating between two threads, with varied syscalls so frames do not compress to nothing.
inline std::vector<Event> many_events(size_t count) {
    std::vector<Event> events;
    events.reserve(count);
    for (size_t i = 0; i < count; ++i) {
        const int32_t tid = static_cast<int32_t>(1 + i % 2);
        if (i % 5 == 0) {
            events.push_back({i * 100, tid, 1, ScheduleEvent{3 - tid, ScheduleEvent::Reason::Yield}});
        } else {
            events.push_back({i * 100, tid, 1,
                              SyscallEvent{static_cast<int32_t>(i % 300),
                                           {i, i * 7, i ^ 0x5a5a},
                                           static_cast<int64_t>(i % 3) - 1,
                                           false,
                                           {},
                                           false,
                                           {}}});
        }
    }
    return events;
}

inline RecordingMeta sample_meta(const std::string& id) {
    RecordingMeta meta;
    meta.id = id;
    meta.name = "sample";
    meta.argv = {"/bin/true", "x"};
    meta.env = {"PATH=/usr/bin"};
    meta.cwd = "/tmp";
    meta.hermit_version = "0.1.0";
    meta.started_at_unix_ms = 1700000000000;
    meta.config.seed = 42;
    meta.config.chaos = true;
    meta.config.sched_heuristic = "pct";
    meta.host.kernel_release = "6.18.0";
    meta.host.cpu_count = 2;
    meta.inherited_descriptors = {{3, InheritedDescriptor::Kind::Pipe, 01},
                                  {7, InheritedDescriptor::Kind::File, 0}};
    return meta;
}

// Writes a finished recording of `events` into `directory`.
inline void write_recording(const std::filesystem::path& directory, const std::vector<Event>& events,
                            const std::string& id = "sample-1", int64_t started_at_unix_ms = 1700000000000) {
    auto meta = sample_meta(id);
    meta.started_at_unix_ms = started_at_unix_ms;
    RecordingWriter writer(directory, meta);
    for (const auto& event : events) {
        writer.append(event);
    }
    writer.finish(0, events.empty() ? 0 : events.back().time);
}

} // namespace hermit::test
