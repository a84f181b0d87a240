#include "EventColumns.h"

#include <array>
#include <utility>

namespace hermit {

namespace {

template <size_t... I> auto kind_names(std::index_sequence<I...>) {
    return std::array<const char*, sizeof...(I)>{event_kind_name(EventPayload(std::in_place_index<I>))...};
}

} // namespace

const char* event_kind_name_of(uint8_t kind) {
    static const auto names = kind_names(std::make_index_sequence<std::variant_size_v<EventPayload>>());
    return kind < names.size() ? names[kind] : "unknown";
}

void EventColumnsBuilder::reserve(uint64_t events) {
    columns_.times.reserve(events);
    columns_.tids.reserve(events);
    columns_.kinds.reserve(events);
}

void EventColumnsBuilder::add(const Event& event) {
    // Consecutive events mostly belong to the thread holding the run token: skip the set lookup for them.
    if ((columns_.tids.empty() || columns_.tids.back() != event.tid) &&
        known_tids_.insert(event.tid).second) {
        columns_.threads.push_back(ColumnThread{event.tid, event.pid});
    }
    columns_.times.push_back(event.time);
    columns_.tids.push_back(event.tid);
    columns_.kinds.push_back(static_cast<uint8_t>(event.payload.index()));
}

EventColumns columns_of_events(const std::vector<Event>& events) {
    EventColumnsBuilder builder;
    builder.reserve(events.size());
    for (const Event& event : events) {
        builder.add(event);
    }
    return builder.take();
}

} // namespace hermit
