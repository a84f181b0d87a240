#pragma once
// FrameWriter: turns batches of events into frames (FrameCodec.h) and appends them to events.hrec on a
// thread of its own, in the order they were handed over. A recording's events come from the tracer, whose
// time is the guest's: it only hands a batch over, and the serializing and compressing run on another core
// while the guest goes on. A batch may bring the disk work its frame depends on (the recording's metadata,
// which lists the files its events use), done on the thread before the frame. One batch may wait behind
// the one being written; submit() waits for room beyond that, so a hermit killed outright loses at most
// those two batches and the one being filled.
// Internal to formats/: RecordingWriter uses it.

#include "Event.h"
#include "FileIo.h"
#include "FrameCodec.h"
#include "RecordingIndex.h"

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace hermit {

class FrameWriter {
public:
    // Appends to `events`, the file at `path` (named in errors with `recording`), from its start.
    FrameWriter(UniqueFd events, std::filesystem::path path, std::string recording);
    // Writes what was handed over; a failure is then only lost (drain() reports it).
    ~FrameWriter();
    FrameWriter(const FrameWriter&) = delete;
    FrameWriter& operator=(const FrameWriter&) = delete;

    // Hands over the events numbered from `first_index` (none: no frame), and `before`, which the thread
    // runs first unless it is empty. Throws the failure of an earlier batch.
    void submit(uint64_t first_index, std::vector<Event> batch, std::function<void()> before = {});
    // Returns once every batch handed over is written. Throws the first failure (hermit::Error).
    void drain();
    // Drains, then writes the last batch (like submit()) on the calling thread while the thread ends: the
    // caller would only wait for it, and waking it took 0.3 ms here. Nothing may be handed over after.
    void finish(uint64_t first_index, std::vector<Event> batch, std::function<void()> before);

    // What drain() left on disk.
    const std::vector<FrameLocation>& frames() const { return frames_; }
    uint64_t file_bytes() const { return file_bytes_; }

private:
    struct Batch {
        uint64_t first_index = 0;
        std::vector<Event> events;
        std::function<void()> before;
    };

    void write_batches();
    void write(const Batch& batch);
    void rethrow_failure();

    UniqueFd events_;
    std::filesystem::path path_;
    std::string recording_;
    // The thread's own, until drain() or finish() returns.
    FrameEncoder encoder_;
    std::vector<FrameLocation> frames_;
    uint64_t file_bytes_ = 0;

    std::mutex mutex_;
    std::condition_variable changed_;
    std::optional<Batch> waiting_; // handed over, not yet taken by the thread
    bool writing_ = false;         // the thread holds a batch
    bool stopping_ = false;
    std::exception_ptr failure_;
    std::thread thread_;
};

} // namespace hermit
