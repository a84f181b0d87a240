#include "RecordedEvents.h"

#include <fmt/format.h>

#include <stdexcept>

namespace hermit::gui {

RecordedEvents::RecordedEvents(RecordingReader reader, uint64_t count)
    : reader_(std::make_unique<RecordingReader>(std::move(reader))), count_(count) {}

RecordedEvents::RecordedEvents(std::vector<Event> events)
    : events_(std::move(events)), count_(events_.size()) {}

Event RecordedEvents::at(uint64_t index) const {
    if (index >= count_) {
        throw std::out_of_range(fmt::format("event {} of a recording with {} events", index, count_));
    }
    if (!reader_) {
        return events_[index];
    }
    const std::lock_guard lock(*mutex_);
    reader_->seek(index);
    Event event;
    if (!reader_->next(event)) {
        throw std::out_of_range(fmt::format("event {} is missing from the recording", index));
    }
    return event;
}

std::vector<Event> RecordedEvents::all() const {
    if (!reader_) {
        return events_;
    }
    const std::lock_guard lock(*mutex_);
    return reader_->read_all();
}

} // namespace hermit::gui
