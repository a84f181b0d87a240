#include "LoadedRecording.h"

namespace hermit::gui {

namespace {
constexpr uint64_t kProgressEvery = 65536;
}

std::shared_ptr<const LoadedRecording> load_recording(const std::filesystem::path& directory,
                                                      const LoadProgress& progress) {
    RecordingReader reader(directory);
    auto recording = std::make_shared<LoadedRecording>();
    recording->directory = reader.directory();
    recording->meta = reader.meta();
    const uint64_t expected = recording->meta.event_count;
    recording->events.reserve(expected);
    Event event;
    while (reader.next(event)) {
        recording->events.push_back(std::move(event));
        if (progress && recording->events.size() % kProgressEvery == 0) {
            progress(recording->events.size(), expected);
        }
    }
    recording->timeline = TimelineModel(recording->events);
    if (progress) {
        progress(recording->events.size(), recording->events.size());
    }
    return recording;
}

std::shared_ptr<const LoadedRecording> recording_from_events(std::vector<Event> events, RecordingMeta meta) {
    auto recording = std::make_shared<LoadedRecording>();
    recording->meta = std::move(meta);
    recording->events = std::move(events);
    recording->timeline = TimelineModel(recording->events);
    return recording;
}

} // namespace hermit::gui
