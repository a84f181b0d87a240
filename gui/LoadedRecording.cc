#include "LoadedRecording.h"

namespace hermit::gui {

std::shared_ptr<const LoadedRecording> load_recording(const std::filesystem::path& directory) {
    RecordingReader reader(directory);
    auto recording = std::make_shared<LoadedRecording>();
    recording->directory = reader.directory();
    recording->meta = reader.meta();
    recording->columns = reader.event_columns();
    recording->timeline = TimelineModel(recording->columns);
    recording->events = RecordedEvents(std::move(reader), recording->columns.event_count());
    return recording;
}

std::shared_ptr<const LoadedRecording> recording_from_events(std::vector<Event> events, RecordingMeta meta) {
    auto recording = std::make_shared<LoadedRecording>();
    recording->meta = std::move(meta);
    recording->columns = columns_of_events(events);
    recording->timeline = TimelineModel(recording->columns);
    recording->events = RecordedEvents(std::move(events));
    return recording;
}

} // namespace hermit::gui
