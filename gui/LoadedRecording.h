#pragma once
// LoadedRecording: one recording read into memory for the GUI: its metadata, every event, and the timeline
// built from them. Immutable once built, so views on the GUI thread share it while nothing can change it.

#include "TimelineModel.h"

#include "formats/Recording.h"

#include <filesystem>
#include <functional>
#include <memory>
#include <vector>

namespace hermit::gui {

struct LoadedRecording {
    std::filesystem::path directory;
    RecordingMeta meta;
    std::vector<Event> events;
    TimelineModel timeline;
};

// Called now and then with (events read, events expected); expected comes from the metadata and may be 0
// for a recording that was not finished.
using LoadProgress = std::function<void(uint64_t done, uint64_t expected)>;

// Reads and validates the whole recording; throws hermit::Error (E03x) like RecordingReader.
std::shared_ptr<const LoadedRecording> load_recording(const std::filesystem::path& directory,
                                                      const LoadProgress& progress = {});

// A recording made of events that are already in memory (no directory).
std::shared_ptr<const LoadedRecording> recording_from_events(std::vector<Event> events,
                                                             RecordingMeta meta = {});

} // namespace hermit::gui
