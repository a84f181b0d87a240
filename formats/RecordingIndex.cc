#include "RecordingIndex.h"

#include "FormatDamage.h"
#include "schema/recording.capnp.h"

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <fmt/format.h>
#include <kj/exception.h>

#include <cstring>
#include <unordered_set>
#include <variant>

namespace hermit {

namespace {

// RecordingIndex -> lists -> structs: nothing nests deeper.
constexpr int kNestingLimit = 8;

FormatDamage corrupt(const std::string& what) {
    return FormatDamage(FormatDamage::Kind::Corrupt, what);
}

template <typename Value, typename List> std::vector<Value> column_of(List list) {
    std::vector<Value> values;
    values.reserve(list.size());
    for (auto value : list) {
        values.push_back(value);
    }
    return values;
}

template <typename List, typename Value> void fill_column(List list, const std::vector<Value>& values) {
    for (size_t i = 0; i < values.size(); ++i) {
        list.set(static_cast<unsigned>(i), values[i]);
    }
}

void check_consistent(const RecordingIndex& index) {
    const EventColumns& summary = index.summary;
    const uint64_t events = summary.times.size();
    if (summary.tids.size() != events || summary.kinds.size() != events) {
        throw corrupt("summary columns differ in length");
    }
    uint64_t next_index = 0;
    uint64_t next_offset = 0;
    for (const FrameLocation& frame : index.frames) {
        if (frame.first_index != next_index || frame.offset < next_offset || frame.event_count == 0 ||
            frame.offset >= index.events_file_bytes) {
            throw corrupt(fmt::format("frame index entry at byte {} is out of order", frame.offset));
        }
        next_index += frame.event_count;
        next_offset = frame.offset + 1;
    }
    if (next_index != events) {
        throw corrupt(fmt::format("frame index counts {} events but the summary has {}", next_index, events));
    }
    std::unordered_set<int32_t> threads;
    for (const ColumnThread& thread : summary.threads) {
        threads.insert(thread.tid);
    }
    for (size_t i = 0; i < events; ++i) {
        if ((i == 0 || summary.tids[i] != summary.tids[i - 1]) && !threads.contains(summary.tids[i])) {
            throw corrupt(
                fmt::format("event {} has thread {}, which the summary does not list", i, summary.tids[i]));
        }
    }
    for (uint8_t kind : summary.kinds) {
        if (kind >= std::variant_size_v<EventPayload>) {
            throw corrupt(fmt::format("unknown event kind {} in the summary", kind));
        }
    }
}

} // namespace

std::vector<uint8_t> encode_recording_index(const RecordingIndex& index) {
    capnp::MallocMessageBuilder message;
    auto root = message.initRoot<schema::RecordingIndex>();
    root.setEventsFileBytes(index.events_file_bytes);
    auto frames = root.initFrames(static_cast<unsigned>(index.frames.size()));
    for (size_t i = 0; i < index.frames.size(); ++i) {
        auto entry = frames[static_cast<unsigned>(i)];
        entry.setOffset(index.frames[i].offset);
        entry.setFirstIndex(index.frames[i].first_index);
        entry.setEventCount(static_cast<uint32_t>(index.frames[i].event_count));
    }
    const EventColumns& summary = index.summary;
    auto threads = root.initThreads(static_cast<unsigned>(summary.threads.size()));
    for (size_t i = 0; i < summary.threads.size(); ++i) {
        threads[static_cast<unsigned>(i)].setTid(summary.threads[i].tid);
        threads[static_cast<unsigned>(i)].setPid(summary.threads[i].pid);
    }
    fill_column(root.initEventTimes(static_cast<unsigned>(summary.times.size())), summary.times);
    fill_column(root.initEventTids(static_cast<unsigned>(summary.tids.size())), summary.tids);
    fill_column(root.initEventKinds(static_cast<unsigned>(summary.kinds.size())), summary.kinds);
    auto words = capnp::messageToFlatArray(message);
    auto bytes = words.asBytes();
    return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

RecordingIndex decode_recording_index(std::span<const uint8_t> bytes) {
    if (bytes.size() % sizeof(capnp::word) != 0) {
        throw corrupt("summary message is not a whole number of words");
    }
    // The frame payload is a byte vector; capnp wants aligned words.
    auto words = kj::heapArray<capnp::word>(bytes.size() / sizeof(capnp::word));
    std::memcpy(words.begin(), bytes.data(), bytes.size());
    capnp::ReaderOptions options;
    options.traversalLimitInWords = words.size() * 2 + 1024;
    options.nestingLimit = kNestingLimit;
    RecordingIndex index;
    try {
        capnp::FlatArrayMessageReader reader(words.asPtr(), options);
        auto root = reader.getRoot<schema::RecordingIndex>();
        index.events_file_bytes = root.getEventsFileBytes();
        auto frames = root.getFrames();
        index.frames.reserve(frames.size());
        for (auto frame : frames) {
            index.frames.push_back(
                FrameLocation{frame.getOffset(), frame.getFirstIndex(), frame.getEventCount()});
        }
        auto threads = root.getThreads();
        index.summary.threads.reserve(threads.size());
        for (auto thread : threads) {
            index.summary.threads.push_back(ColumnThread{thread.getTid(), thread.getPid()});
        }
        index.summary.times = column_of<uint64_t>(root.getEventTimes());
        index.summary.tids = column_of<int32_t>(root.getEventTids());
        index.summary.kinds = column_of<uint8_t>(root.getEventKinds());
    } catch (const kj::Exception& exception) {
        throw corrupt(fmt::format("summary message is malformed: {}", exception.getDescription().cStr()));
    }
    check_consistent(index);
    return index;
}

} // namespace hermit
