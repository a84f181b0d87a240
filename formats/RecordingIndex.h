#pragma once
// The content of summary.hrec (schema RecordingIndex): where each frame of events.hrec starts, and the
// EventColumns columns. Internal to formats/: RecordingWriter writes it, RecordingReader reads it.

#include "EventColumns.h"

#include <cstdint>
#include <span>
#include <vector>

namespace hermit {

struct FrameLocation {
    uint64_t offset = 0;
    uint64_t first_index = 0;
    uint64_t event_count = 0;
};

struct RecordingIndex {
    uint64_t events_file_bytes = 0;
    std::vector<FrameLocation> frames;
    EventColumns summary;
};

// The unpacked flat-array bytes of one RecordingIndex message.
std::vector<uint8_t> encode_recording_index(const RecordingIndex& index);

// Parses with traversal limits and checks that the index is self-consistent (frames contiguous and in
// order, columns of equal length that the frames account for, known event kinds). Throws FormatDamage.
RecordingIndex decode_recording_index(std::span<const uint8_t> bytes);

} // namespace hermit
