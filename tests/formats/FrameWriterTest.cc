// FrameWriter writes frames from a thread of its own: the frames must be on disk in the order the batches
// were handed over, where frames() says, each after the work handed over with it, and a write that fails
// must reach the recording thread.

#include "formats/FrameWriter.h"
#include "TestRecordings.h"
#include "formats/EventCodec.h"
#include "formats/FrameCodec.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <vector>

namespace hermit {
namespace {

std::vector<uint8_t> file_bytes(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<Event> frame_events(std::span<const uint8_t> file, const FrameLocation& frame) {
    const auto header = parse_frame_header(file.subspan(frame.offset).first<kFrameHeaderSize>());
    const auto payload = file.subspan(frame.offset + kFrameHeaderSize, header.compressed_length);
    return decode_batch(decode_frame_payload(header, payload), frame.first_index);
}

TEST(FrameWriter, WritesTheBatchesInOrderWhereItsFramesSay) {
    test::TemporaryDirectory temporary;
    const auto path = temporary.path() / "events.hrec";
    const std::vector<Event> events = test::every_kind_of_event();
    std::vector<std::vector<Event>> batches;
    {
        FrameWriter writer(UniqueFd(::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600)), path, "w");
        uint64_t first_index = 0;
        for (int round = 0; round < 20; round++) {
            std::vector<Event> batch(events.begin(), events.begin() + 1 + round % events.size());
            batches.push_back(batch);
            writer.submit(first_index, std::move(batch));
            first_index += batches.back().size();
        }
        writer.drain();

        const std::vector<uint8_t> written = file_bytes(path);
        EXPECT_EQ(writer.file_bytes(), written.size());
        ASSERT_EQ(writer.frames().size(), batches.size());
        uint64_t expected_first = 0;
        for (size_t index = 0; index < batches.size(); index++) {
            const FrameLocation& frame = writer.frames()[index];
            EXPECT_EQ(frame.first_index, expected_first);
            EXPECT_EQ(frame.event_count, batches[index].size());
            EXPECT_EQ(frame_events(written, frame), batches[index]) << "frame " << index;
            expected_first += batches[index].size();
        }
    }
}

TEST(FrameWriter, RunsTheWorkOfABatchBeforeItsFrameAndWritesNoFrameForNoEvents) {
    test::TemporaryDirectory temporary;
    const auto path = temporary.path() / "events.hrec";
    FrameWriter writer(UniqueFd(::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600)), path, "w");
    std::vector<uint64_t> sizes_seen_before; // events.hrec's size when each batch's work ran
    auto note_size = [&] { sizes_seen_before.push_back(std::filesystem::file_size(path)); };
    writer.submit(0, {}, note_size);
    writer.submit(0, test::every_kind_of_event(), note_size);
    writer.submit(test::every_kind_of_event().size(), {}, note_size);
    writer.drain();

    ASSERT_EQ(writer.frames().size(), 1u);
    EXPECT_EQ(sizes_seen_before, (std::vector<uint64_t>{0, 0, writer.file_bytes()}));
    EXPECT_EQ(std::filesystem::file_size(path), writer.file_bytes());
}

TEST(FrameWriter, AFailedWriteReachesDrainAndTheNextSubmit) {
    test::TemporaryDirectory temporary;
    const auto path = temporary.path() / "events.hrec";
    // Open for reading only: every write of the thread fails (EBADF).
    ::close(::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
    FrameWriter writer(UniqueFd(::open(path.c_str(), O_RDONLY | O_CLOEXEC)), path, "broken-1");
    writer.submit(0, test::every_kind_of_event());
    try {
        writer.drain();
        FAIL() << "drain() returned after a failed write";
    } catch (const Error& error) {
        EXPECT_EQ(error.code(), ErrorCode::RecordingIo);
        EXPECT_NE(std::string(error.what()).find("broken-1"), std::string::npos) << error.what();
    }
    EXPECT_THROW(writer.submit(1, test::every_kind_of_event()), Error);
    EXPECT_TRUE(writer.frames().empty());
}

} // namespace
} // namespace hermit
