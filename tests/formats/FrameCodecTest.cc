// The frame layer: one FrameEncoder serves every frame of a recording, so a frame must not depend on the
// ones encoded before it, a small frame must not cost its reader the memory of a large dictionary, and a
// payload too small to be worth the encoder's setup is stored.

#include "formats/FrameCodec.h"

#include <gtest/gtest.h>
#include <lzma.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

namespace hermit {
namespace {

std::vector<uint8_t> compressible_bytes(size_t size) {
    std::vector<uint8_t> bytes(size);
    for (size_t i = 0; i < size; ++i) {
        bytes[i] = static_cast<uint8_t>("syscall read fd 3 "[i % 18] + (i / 4096) % 3);
    }
    return bytes;
}

std::vector<uint8_t> random_bytes(size_t size) {
    std::vector<uint8_t> bytes(size);
    std::mt19937 random(7);
    for (auto& byte : bytes) {
        byte = static_cast<uint8_t>(random());
    }
    return bytes;
}

std::vector<uint8_t> decode(std::span<const uint8_t> frame) {
    const FrameHeader header = parse_frame_header(frame.first<kFrameHeaderSize>());
    return decode_frame_payload(header, frame.subspan(kFrameHeaderSize));
}

TEST(RecordingFrames, OneEncoderRoundTripsPayloadsOfEverySizeInAnyOrder) {
    // Small after large and large after small: the encoder's dictionary and tables change size between them.
    const std::vector<std::vector<uint8_t>> payloads = {
        compressible_bytes(8),          random_bytes(1u << 20), compressible_bytes(3000),
        compressible_bytes(200 * 1024), random_bytes(64),       compressible_bytes(16)};
    FrameEncoder encoder;
    std::vector<std::vector<uint8_t>> frames;
    for (const auto& payload : payloads) {
        frames.push_back(encoder.encode(payload));
    }
    for (size_t i = 0; i < payloads.size(); ++i) {
        EXPECT_EQ(decode(frames[i]), payloads[i]) << "payload " << i;
    }
    EXPECT_LT(frames[3].size(), payloads[3].size() / 10) << "the compressible payload was not compressed";
}

TEST(RecordingFrames, ASmallFrameDecodesWithTheMemoryOfASmallDictionary) {
    // xz preset 1 states a 1 MiB dictionary; the encoder cuts it to the payload, which the stream header
    // says.
    const auto payload = compressible_bytes(kStoredFrameLimit + 4096);
    FrameEncoder encoder;
    const auto frame = encoder.encode(payload);
    std::vector<uint8_t> decoded(payload.size());
    uint64_t memory_limit = 256u << 10;
    size_t in_position = 0;
    size_t out_position = 0;
    const lzma_ret status = lzma_stream_buffer_decode(
        &memory_limit, 0, nullptr, frame.data() + kFrameHeaderSize, &in_position,
        frame.size() - kFrameHeaderSize, decoded.data(), &out_position, decoded.size());
    ASSERT_EQ(status, LZMA_OK);
    EXPECT_EQ(decoded, payload);
}

TEST(RecordingFrames, APayloadBelowTheLimitIsStoredAsItIs) {
    const auto payload = compressible_bytes(kStoredFrameLimit - 8);
    FrameEncoder encoder;
    const auto frame = encoder.encode(payload);
    const FrameHeader header = parse_frame_header(std::span(frame).first<kFrameHeaderSize>());
    EXPECT_EQ(header.flags, kFrameStored);
    EXPECT_EQ(header.compressed_length, payload.size());
    EXPECT_TRUE(std::equal(payload.begin(), payload.end(), frame.begin() + kFrameHeaderSize));
    EXPECT_EQ(decode(frame), payload);
    // The payload at and past the limit is compressed.
    const auto compressed = encoder.encode(compressible_bytes(kStoredFrameLimit));
    EXPECT_EQ(parse_frame_header(std::span(compressed).first<kFrameHeaderSize>()).flags, 0);
    EXPECT_LT(compressed.size(), kStoredFrameLimit / 10);
}

} // namespace
} // namespace hermit
