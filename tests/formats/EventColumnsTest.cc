// The recording summary (summary.hrec): written by finish(), returned by RecordingReader::event_columns(),
// used by seek() as a frame index, and ignored when it is missing, damaged or stale.
#include "TestRecordings.h"

#include "formats/Error.h"
#include "formats/Recording.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

namespace hermit {
namespace {

using test::TemporaryDirectory;

constexpr size_t kEvents = 20000; // five frames of at most 4096 events

std::vector<uint8_t> read_bytes(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// Flips a bit in the middle of the first frame's payload, so reading frame 0 fails its CRC check.
void damage_first_frame(const std::filesystem::path& directory) {
    auto stream = read_bytes(directory / "events.hrec");
    stream[100] ^= 0x10;
    write_bytes(directory / "events.hrec", stream);
}

Event event_at(RecordingReader& reader, uint64_t index) {
    reader.seek(index);
    Event event;
    EXPECT_TRUE(reader.next(event));
    return event;
}

TEST(EventColumns, BuiltFromEventsInOrderWithThreadsByFirstAppearance) {
    const std::vector<Event> events{{5, 7, 7, ScheduleEvent{0, ScheduleEvent::Reason::Started}},
                                    {6, 9, 8, ThreadStartEvent{7, true}},
                                    {7, 7, 7, SignalEvent{10, 0, 0, false}},
                                    {8, 9, 8, ThreadExitEvent{0, true}}};
    const EventColumns columns = columns_of_events(events);
    EXPECT_EQ(columns.threads, (std::vector<ColumnThread>{{7, 7}, {9, 8}}));
    EXPECT_EQ(columns.times, (std::vector<uint64_t>{5, 6, 7, 8}));
    EXPECT_EQ(columns.tids, (std::vector<int32_t>{7, 9, 7, 9}));
    EXPECT_EQ(columns.kinds, (std::vector<uint8_t>{0, 3, 2, 4}));
}

TEST(EventColumns, FinishedRecordingStoresTheSummary) {
    TemporaryDirectory temporary;
    const auto directory = temporary.path() / "rec";
    const auto events = test::many_events(kEvents);
    test::write_recording(directory, events);
    ASSERT_TRUE(std::filesystem::exists(directory / "summary.hrec"));

    RecordingReader reader(directory);
    EXPECT_EQ(reader.event_columns(), columns_of_events(events));
    // event_columns() rewinds: iteration starts at event 0.
    Event first;
    ASSERT_TRUE(reader.next(first));
    EXPECT_EQ(first, events[0]);
}

TEST(EventColumns, SeekUsesTheFrameIndexInsteadOfReadingEarlierFrames) {
    TemporaryDirectory temporary;
    const auto directory = temporary.path() / "rec";
    const auto events = test::many_events(kEvents);
    test::write_recording(directory, events);
    damage_first_frame(directory);
    {
        RecordingReader reader(directory);
        EXPECT_EQ(event_at(reader, kEvents - 1), events.back());
        EXPECT_EQ(event_at(reader, 12345), events[12345]);
        EXPECT_EQ(reader.event_columns(), columns_of_events(events));
        // The damaged frame is still reported when it is read.
        EXPECT_THROW(reader.read_all(), Error);
    }
    // Without the index, seeking scans every frame from the start and meets the damage.
    std::filesystem::remove(directory / "summary.hrec");
    RecordingReader reader(directory);
    EXPECT_THROW(reader.seek(kEvents - 1), Error);
}

TEST(EventColumns, DamagedOrCutShortSummaryIsIgnored) {
    // Cut short: finish() writes the summary in place, so a hermit killed while writing it leaves a prefix.
    TemporaryDirectory temporary;
    const auto directory = temporary.path() / "rec";
    const auto events = test::many_events(kEvents);
    test::write_recording(directory, events);
    const auto summary = read_bytes(directory / "summary.hrec");
    std::vector<std::pair<std::string, std::vector<uint8_t>>> variants;
    for (size_t offset : {size_t{2}, size_t{30}, summary.size() / 2, summary.size() - 1}) {
        auto damaged = summary;
        damaged[offset] ^= 0x01;
        variants.emplace_back("bit flipped at byte " + std::to_string(offset), std::move(damaged));
    }
    for (size_t length : {size_t{0}, size_t{10}, size_t{24}, summary.size() / 2, summary.size() - 1}) {
        variants.emplace_back("cut to " + std::to_string(length) + " bytes",
                              std::vector<uint8_t>(summary.begin(), summary.begin() + length));
    }
    for (const auto& [what, bytes] : variants) {
        write_bytes(directory / "summary.hrec", bytes);
        RecordingReader reader(directory);
        EXPECT_EQ(reader.event_columns(), columns_of_events(events)) << what;
        EXPECT_EQ(event_at(reader, kEvents - 1), events.back()) << what;
    }
}

TEST(EventColumns, SummaryOfAnotherStreamIsIgnored) {
    TemporaryDirectory temporary;
    const auto events = test::many_events(kEvents);
    const auto shorter = test::many_events(kEvents / 2);
    test::write_recording(temporary.path() / "long", events);
    test::write_recording(temporary.path() / "short", shorter);
    // The long recording's events with the short one's summary (and metadata, so the counts agree).
    std::filesystem::copy_file(temporary.path() / "long" / "events.hrec",
                               temporary.path() / "short" / "events.hrec",
                               std::filesystem::copy_options::overwrite_existing);
    RecordingReader reader(temporary.path() / "short");
    EXPECT_THROW(reader.event_columns(), Error); // the stream holds more events than the metadata counts
    RecordingReader seeking(temporary.path() / "short");
    EXPECT_EQ(event_at(seeking, kEvents / 2 - 1), events[kEvents / 2 - 1]);
}

TEST(EventColumns, UnfinishedRecordingIsSummarizedFromItsStream) {
    TemporaryDirectory temporary;
    const auto directory = temporary.path() / "rec";
    const auto events = test::many_events(kEvents);
    {
        RecordingWriter writer(directory, test::sample_meta("unfinished-1"));
        for (const auto& event : events) {
            writer.append(event);
        }
    }
    EXPECT_FALSE(std::filesystem::exists(directory / "summary.hrec"));
    RecordingReader reader(directory);
    EXPECT_EQ(reader.event_columns(), columns_of_events(events));
}

TEST(EventColumns, TruncatedStreamIsStillReportedWithTheSummaryPresent) {
    TemporaryDirectory temporary;
    const auto directory = temporary.path() / "rec";
    test::write_recording(directory, test::many_events(kEvents));
    auto stream = read_bytes(directory / "events.hrec");
    stream.resize(stream.size() / 2);
    write_bytes(directory / "events.hrec", stream);
    RecordingReader reader(directory);
    try {
        reader.event_columns();
        FAIL() << "a truncated stream was summarized";
    } catch (const Error& error) {
        EXPECT_EQ(error.code(), ErrorCode::RecordingTruncated);
    }
}

} // namespace
} // namespace hermit
