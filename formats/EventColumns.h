#pragma once
// EventColumns: the summary of a recording: a few columns per event (time, thread, kind) plus the threads in
// order of first appearance: enough to lay out a timeline and to filter events by thread and kind without
// decoding them. RecordingWriter::finish() stores it with the frame index in summary.hrec;
// RecordingReader::event_columns() returns it (or rebuilds it from the event stream for recordings that lack
// it).

#include "Event.h"

#include <cstdint>
#include <type_traits>
#include <unordered_set>
#include <variant>
#include <vector>

namespace hermit {

// The kind ordinal of a payload type: payload_index<SyscallEvent>() == 1.
template <typename Payload, size_t I = 0> constexpr uint8_t payload_index() {
    if constexpr (std::is_same_v<std::variant_alternative_t<I, EventPayload>, Payload>) {
        return static_cast<uint8_t>(I);
    } else {
        return payload_index<Payload, I + 1>();
    }
}

// event_kind_name() of a kind ordinal ("schedule", "syscall", ...).
const char* event_kind_name_of(uint8_t kind);

struct ColumnThread {
    int32_t tid = 0;
    int32_t pid = 0; // of the thread's first event
    bool operator==(const ColumnThread&) const = default;
};

struct EventColumns {
    std::vector<ColumnThread> threads;
    std::vector<uint64_t> times; // Event::time, one entry per event
    std::vector<int32_t> tids;
    std::vector<uint8_t> kinds; // EventPayload::index(), the order of the Event union in the schema

    uint64_t event_count() const { return times.size(); }
    bool operator==(const EventColumns&) const = default;
};

// Appends events to a summary; remembers which threads it has seen.
class EventColumnsBuilder {
public:
    void reserve(uint64_t events);
    void add(const Event& event);
    const EventColumns& columns() const { return columns_; }
    EventColumns take() { return std::move(columns_); }

private:
    EventColumns columns_;
    std::unordered_set<int32_t> known_tids_;
};

EventColumns columns_of_events(const std::vector<Event>& events);

} // namespace hermit
