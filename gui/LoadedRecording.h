#pragma once
// LoadedRecording: one recording opened for the GUI: its metadata, the per-event columns (time, thread,
// kind), the timeline built from them, and the events themselves, decoded on demand. Immutable once built,
// so views on the GUI thread share it while nothing can change it.

#include "RecordedEvents.h"
#include "TimelineModel.h"

#include "formats/Recording.h"

#include <filesystem>
#include <memory>
#include <vector>

namespace hermit::gui {

struct LoadedRecording {
    std::filesystem::path directory;
    RecordingMeta meta;
    EventColumns columns;
    TimelineModel timeline;
    RecordedEvents events;
};

// Reads the metadata and the summary (summary.hrec, or a scan of the whole stream when it is missing);
// throws hermit::Error (E03x) like RecordingReader.
std::shared_ptr<const LoadedRecording> load_recording(const std::filesystem::path& directory);

// A recording made of events that are already in memory (no directory).
std::shared_ptr<const LoadedRecording> recording_from_events(std::vector<Event> events,
                                                             RecordingMeta meta = {});

} // namespace hermit::gui
