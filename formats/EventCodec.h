#pragma once
// Conversion between hermit::Event / hermit::RecordingMeta and their Cap'n Proto form, and the flat
// serialization of one EventBatch (the payload of a frame). Decoding validates: unknown union members
// or enum values (a newer writer) and malformed messages throw FormatDamage.

#include "Event.h"
#include "Recording.h"
#include "schema/recording.capnp.h"

#include <cstdint>
#include <span>
#include <vector>

namespace hermit {

void encode_event(const Event& event, schema::Event::Builder out);
Event decode_event(schema::Event::Reader in);

void encode_meta(const RecordingMeta& meta, schema::RecordingMeta::Builder out);
RecordingMeta decode_meta(schema::RecordingMeta::Reader in);

// The unpacked flat-array bytes of one EventBatch.
std::vector<uint8_t> encode_batch(uint64_t first_index, std::span<const Event> events);
// Parses with traversal and nesting limits; checks that the batch starts at `expected_first_index`.
std::vector<Event> decode_batch(std::span<const uint8_t> bytes, uint64_t expected_first_index);

} // namespace hermit
