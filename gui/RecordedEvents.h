#pragma once
// RecordedEvents: random access to the events of one recording without holding them all in memory. Events
// of a recording on disk are decoded on demand through RecordingReader::seek, a frame (4096 events) at a
// time, so opening a recording of a million events decodes none of them; the table shows the few rows on
// screen. Damage in a frame is reported (hermit::Error) by the first access to one of its events.
// Thread-safe: the reader is used under a lock.

#include "formats/Recording.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace hermit::gui {

class RecordedEvents {
public:
    RecordedEvents() = default;
    RecordedEvents(RecordingReader reader, uint64_t count);
    explicit RecordedEvents(std::vector<Event> events);

    uint64_t size() const { return count_; }
    // Throws std::out_of_range for an index past the end, hermit::Error for a damaged frame.
    Event at(uint64_t index) const;
    // Every event, in order (the schedule diff compares whole streams).
    std::vector<Event> all() const;

private:
    std::unique_ptr<std::mutex> mutex_ = std::make_unique<std::mutex>(); // movable, unlike a mutex
    std::unique_ptr<RecordingReader> reader_; // null when the events came from memory
    std::vector<Event> events_;
    uint64_t count_ = 0;
};

} // namespace hermit::gui
