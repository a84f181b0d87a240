#pragma once
// The frame layer of events.hrec. A frame is a fixed 24-byte little-endian header followed by an
// xz-compressed payload (one flat Cap'n Proto EventBatch), or the payload as it is when it is small:
//   offset 0  magic "HRMF"
//          4  u16 format version (schema::FORMAT_VERSION)
//          6  u16 flags: kFrameStored (the payload follows uncompressed), no other
//          8  u32 compressed payload length (for a stored frame, the uncompressed length)
//         12  u32 uncompressed payload length
//         16  u32 CRC32 of the compressed payload
//         20  u32 CRC32 of header bytes 0..19
// Every length read from disk is checked against the limits below before anything is allocated.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace hermit {

inline constexpr size_t kFrameHeaderSize = 24;
inline constexpr uint32_t kMaxCompressedFrameBytes = 64u << 20;
inline constexpr uint32_t kMaxUncompressedFrameBytes = 256u << 20;
inline constexpr uint16_t kFrameStored = 1;
// Smaller payloads are stored: below this size the xz encoder's setup (clearing and faulting in its hash
// tables, about 1.5 ms of a short recording on our VMs) costs more than the bytes it saves are worth.
inline constexpr size_t kStoredFrameLimit = 64u << 10;

struct FrameHeader {
    uint16_t version = 0;
    uint16_t flags = 0;
    uint32_t compressed_length = 0;
    uint32_t uncompressed_length = 0;
    uint32_t payload_crc = 0;
};

// Makes frames. One encoder serves every frame of a recording: the xz encoder's memory (hash tables and
// window, about 1 MiB for a small payload) is allocated and faulted in once, not once per frame, and not at
// all for a recording whose frames are all stored.
class FrameEncoder {
public:
    FrameEncoder();
    ~FrameEncoder();
    FrameEncoder(const FrameEncoder&) = delete;
    FrameEncoder& operator=(const FrameEncoder&) = delete;

    // Compresses `payload` (stores it below kStoredFrameLimit) and prepends its header: the bytes of one
    // frame, ready for a single write().
    std::vector<uint8_t> encode(std::span<const uint8_t> payload);

private:
    struct State;
    std::unique_ptr<State> state_;
};

// Checks magic, header CRC, version, flags and length limits. Throws FormatDamage.
FrameHeader parse_frame_header(std::span<const uint8_t, kFrameHeaderSize> bytes);

// Checks the payload's length and CRC. Throws FormatDamage.
void check_frame_payload(const FrameHeader& header, std::span<const uint8_t> compressed);

// Checks the payload CRC and decompresses to exactly header.uncompressed_length bytes. Throws FormatDamage.
std::vector<uint8_t> decode_frame_payload(const FrameHeader& header, std::span<const uint8_t> compressed);

} // namespace hermit
