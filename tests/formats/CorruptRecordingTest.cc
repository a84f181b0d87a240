// Damaged recordings must fail with the right hermit::Error code (E030-E034), never crash or hang:
// truncation at every byte, single bit flips at every byte, wrong versions, empty and missing files,
// random bytes and forged length fields.
#include "TestRecordings.h"

#include "formats/Error.h"
#include "formats/EventCodec.h"
#include "formats/FrameCodec.h"
#include "formats/Recording.h"

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <gtest/gtest.h>
#include <lzma.h>

#include <fstream>
#include <optional>
#include <random>

namespace hermit {
namespace {

using test::TemporaryDirectory;

std::vector<uint8_t> read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_file(const std::filesystem::path& path, std::span<const uint8_t> bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// Opens the recording and reads every event; nullopt if that worked.
std::optional<ErrorCode> read_everything(const std::filesystem::path& directory) {
    try {
        RecordingReader reader(directory);
        reader.read_all();
        return std::nullopt;
    } catch (const Error& error) {
        return error.code();
    }
}

// Opens the recording and checks its frames without decoding them (`record list`); nullopt if that worked.
std::optional<ErrorCode> check_frames(const std::filesystem::path& directory) {
    try {
        RecordingReader(directory).check_frames();
        return std::nullopt;
    } catch (const Error& error) {
        return error.code();
    }
}

std::string code_name(std::optional<ErrorCode> code) {
    return code ? std::string(error_info(*code).code) : "no error";
}

void write_meta(const std::filesystem::path& directory, const RecordingMeta& meta) {
    write_file(directory / "meta.capnp.bin", meta_file_bytes(meta));
}

// A finished recording of three frames (the writer is flushed between batches).
struct SmallRecording {
    TemporaryDirectory temporary;
    std::filesystem::path directory = temporary.path() / "rec";
    std::vector<uint64_t> frame_ends; // byte offsets where each frame ends
    std::vector<uint8_t> stream;
    std::vector<uint8_t> meta;

    SmallRecording() {
        const auto events = test::every_kind_of_event();
        RecordingWriter writer(directory, test::sample_meta("small-1"));
        for (size_t i = 0; i < events.size(); ++i) {
            writer.append(events[i]);
            if (i % 4 == 3) {
                writer.flush();
                frame_ends.push_back(std::filesystem::file_size(directory / "events.hrec"));
            }
        }
        writer.finish(0, 110);
        stream = read_file(directory / "events.hrec");
        meta = read_file(directory / "meta.capnp.bin");
    }
};

TEST(CorruptRecording, TheUndamagedRecordingReads) {
    SmallRecording recording;
    ASSERT_EQ(recording.frame_ends.size(), 3u);
    EXPECT_EQ(read_everything(recording.directory), std::nullopt);
    EXPECT_EQ(check_frames(recording.directory), std::nullopt);
}

TEST(CorruptRecording, TruncationAtEveryByteIsReportedAsTruncated) {
    SmallRecording recording;
    for (size_t length = 0; length < recording.stream.size(); ++length) {
        write_file(recording.directory / "events.hrec", std::span(recording.stream).first(length));
        EXPECT_EQ(code_name(read_everything(recording.directory)), "E032") << "truncated to " << length;
    }
}

TEST(CorruptRecording, UnfinishedRecordingEndsCleanlyAtFrameBoundariesOnly) {
    SmallRecording recording;
    auto meta = RecordingReader(recording.directory).meta();
    meta.finished = false;
    write_meta(recording.directory, meta);
    for (size_t length = 0; length <= recording.stream.size(); ++length) {
        write_file(recording.directory / "events.hrec", std::span(recording.stream).first(length));
        const bool at_boundary =
            length == 0 || std::find(recording.frame_ends.begin(), recording.frame_ends.end(), length) !=
                               recording.frame_ends.end();
        auto code = read_everything(recording.directory);
        if (at_boundary) {
            EXPECT_EQ(code, std::nullopt) << "cut at frame boundary " << length << ": " << code_name(code);
        } else {
            EXPECT_EQ(code_name(code), "E032") << "cut mid-frame at " << length;
        }
    }
    write_file(recording.directory / "events.hrec",
               std::span(recording.stream).first(recording.frame_ends[1] + 5));
    RecordingReader reader(recording.directory);
    EXPECT_EQ(reader.meta().event_count, 8u); // two whole frames survive
    try {
        reader.read_all();
        FAIL() << "expected E032";
    } catch (const Error& error) {
        EXPECT_EQ(error.code(), ErrorCode::RecordingTruncated);
        EXPECT_NE(std::string(error.what()).find("truncated after event 8"), std::string::npos)
            << error.what();
    }
}

TEST(CorruptRecording, EveryBitFlipInTheStreamIsDetected) {
    SmallRecording recording;
    for (size_t offset = 0; offset < recording.stream.size(); ++offset) {
        for (int bit : {0, 7, static_cast<int>(offset % 8)}) {
            auto damaged = recording.stream;
            damaged[offset] ^= static_cast<uint8_t>(1u << bit);
            write_file(recording.directory / "events.hrec", damaged);
            EXPECT_EQ(code_name(read_everything(recording.directory)), "E031")
                << "bit " << bit << " of byte " << offset;
            EXPECT_EQ(code_name(check_frames(recording.directory)), "E031")
                << "checksums only: bit " << bit << " of byte " << offset;
        }
    }
}

TEST(CorruptRecording, EveryBitFlipInTheMetadataIsReported) {
    SmallRecording recording;
    for (size_t offset = 0; offset < recording.meta.size(); ++offset) {
        auto damaged = recording.meta;
        damaged[offset] ^= static_cast<uint8_t>(1u << (offset % 8));
        write_file(recording.directory / "meta.capnp.bin", damaged);
        // The checksum catches every flip, in a text (an environment value, a path) too.
        EXPECT_EQ(code_name(read_everything(recording.directory)), "E031") << "at byte " << offset;
    }
}

TEST(CorruptRecording, WrongMetadataVersion) {
    SmallRecording recording;
    auto meta = RecordingReader(recording.directory).meta();
    meta.format_version = 1; // a recording of an older hermit
    write_meta(recording.directory, meta);
    try {
        RecordingReader reader(recording.directory);
        FAIL() << "expected E033";
    } catch (const Error& error) {
        EXPECT_EQ(error.code(), ErrorCode::RecordingVersion);
        EXPECT_NE(std::string(error.what()).find("format version 1, this hermit reads version 9"),
                  std::string::npos);
    }
}

// Rewrites a header field of the first frame and fixes the header CRC so only that field is wrong.
void forge_first_header(SmallRecording& recording, size_t field_offset, uint32_t value, size_t field_size) {
    auto damaged = recording.stream;
    for (size_t i = 0; i < field_size; ++i) {
        damaged[field_offset + i] = static_cast<uint8_t>(value >> (8 * i));
    }
    const uint32_t crc = lzma_crc32(damaged.data(), 20, 0);
    for (size_t i = 0; i < 4; ++i) {
        damaged[20 + i] = static_cast<uint8_t>(crc >> (8 * i));
    }
    write_file(recording.directory / "events.hrec", damaged);
}

TEST(CorruptRecording, WrongFrameVersion) {
    SmallRecording recording;
    forge_first_header(recording, 4, 10, 2);
    EXPECT_EQ(code_name(read_everything(recording.directory)), "E033");
}

TEST(CorruptRecording, ForgedLengthFields) {
    SmallRecording recording;
    const std::vector<std::pair<std::pair<size_t, uint32_t>, std::string>> cases = {
        {{8, 0xffffffffu}, "E031"},  // compressed length above the 64 MiB cap
        {{8, 0}, "E031"},            // empty payload
        {{8, 60u << 20}, "E032"},    // plausible, but the file ends first
        {{12, 0xffffffffu}, "E031"}, // uncompressed length above the 256 MiB cap
        {{12, 200u << 20}, "E031"},  // allowed, but does not match the payload
        {{12, 8}, "E031"},           // too small for the payload
        {{12, 13}, "E031"},          // not whole words
        {{6, 2}, "E031"},            // unknown flags
        {{6, 0}, "E031"},            // a stored payload taken for an xz stream
        {{16, 0x12345678}, "E031"},  // payload CRC
    };
    for (const auto& [field, expected] : cases) {
        forge_first_header(recording, field.first, field.second, field.first == 6 ? 2 : 4);
        EXPECT_EQ(code_name(read_everything(recording.directory)), expected)
            << "field at " << field.first << " = " << field.second;
    }
}

TEST(CorruptRecording, ValidFramesWithBadContents) {
    SmallRecording recording;
    auto check = [&](const std::vector<uint8_t>& stream, const std::string& what) {
        write_file(recording.directory / "events.hrec", stream);
        EXPECT_EQ(code_name(read_everything(recording.directory)), "E031") << what;
    };
    std::vector<uint8_t> garbage(64);
    std::mt19937 random(1);
    for (auto& byte : garbage) {
        byte = static_cast<uint8_t>(random());
    }
    FrameEncoder encoder;
    check(encoder.encode(garbage), "payload is not a capnp message");
    auto events = test::every_kind_of_event();
    auto frame = encoder.encode(encode_batch(0, events));
    auto twice = frame;
    twice.insert(twice.end(), frame.begin(), frame.end());
    check(twice, "second frame repeats firstIndex 0");
    check(encoder.encode(encode_batch(5, events)), "first frame does not start at 0");
    check(encoder.encode(encode_batch(0, {})), "frame without events");
    auto long_stream = encoder.encode(encode_batch(0, test::many_events(200)));
    check(long_stream, "more events than the metadata counts");
}

TEST(CorruptRecording, EmptyAndMissingFiles) {
    SmallRecording recording;
    write_file(recording.directory / "events.hrec", {});
    EXPECT_EQ(code_name(read_everything(recording.directory)), "E032");
    write_file(recording.directory / "meta.capnp.bin", {});
    EXPECT_EQ(code_name(read_everything(recording.directory)), "E031");
    std::filesystem::remove(recording.directory / "meta.capnp.bin");
    EXPECT_EQ(code_name(read_everything(recording.directory)), "E034");
    write_file(recording.directory / "meta.capnp.bin", recording.meta);
    std::filesystem::remove(recording.directory / "events.hrec");
    EXPECT_EQ(code_name(read_everything(recording.directory)), "E034");
    EXPECT_EQ(code_name(read_everything(recording.temporary.path() / "nothing-here")), "E030");
}

TEST(CorruptRecording, RandomBytes) {
    SmallRecording recording;
    std::mt19937 random(20261202);
    for (int round = 0; round < 200; ++round) {
        std::vector<uint8_t> bytes(1 + random() % 2000);
        for (auto& byte : bytes) {
            byte = static_cast<uint8_t>(random());
        }
        write_file(recording.directory / "events.hrec", bytes);
        auto code = read_everything(recording.directory);
        EXPECT_EQ(code_name(code), bytes.size() < kFrameHeaderSize ? "E032" : "E031") << "round " << round;
        write_file(recording.directory / "meta.capnp.bin", bytes);
        code = read_everything(recording.directory);
        EXPECT_TRUE(code && (*code == ErrorCode::RecordingCorrupt || *code == ErrorCode::RecordingVersion))
            << code_name(code) << " for random meta, round " << round;
        write_file(recording.directory / "meta.capnp.bin", recording.meta);
    }
}

} // namespace
} // namespace hermit
