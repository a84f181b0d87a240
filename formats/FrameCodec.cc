#include "FrameCodec.h"

#include "FormatDamage.h"
#include "schema/recording.capnp.h"

#include <fmt/format.h>
#include <lzma.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace hermit {

namespace {

constexpr std::array<uint8_t, 4> kMagic = {'H', 'R', 'M', 'F'};
// xz preset 1: several times faster than the default at a slightly lower ratio; recording speed matters more.
constexpr uint32_t kCompressionPreset = 1;
// The encoder's match finder allocates and clears memory in proportion to the dictionary (about 8 MiB for
// the preset's 1 MiB): a fixed cost of every frame, most of the cost of recording a short run. A dictionary
// larger than the payload holds nothing more to match, so it is cut to the payload (the stream header states
// its size, so readers are unchanged).
uint32_t dictionary_size_for(size_t payload_size, uint32_t preset_size) {
    return static_cast<uint32_t>(std::clamp<size_t>(payload_size, LZMA_DICT_SIZE_MIN, preset_size));
}
// Memory the decoder may use; preset 1 needs about 2 MiB, so this only stops absurd stream headers.
constexpr uint64_t kDecoderMemoryLimit = 64u << 20;

// The encoder's tables are written right after they are allocated. Mapped already populated, a table costs
// one system call instead of one page fault per 4 KiB (about 14 µs each on a PVM guest: 9 ms for the first
// frame of a recording, most of it in the last frame that a short run's hermit writes before it exits).
// Each block starts with a header saying how it was made, so that free() needs no size.
constexpr size_t kPopulatedMinimum = 256 << 10;
constexpr size_t kBlockHeader = 16; // keeps malloc's 16-byte alignment

void* allocate_populated(void* /*opaque*/, size_t count, size_t size) {
    if (size != 0 && count > (SIZE_MAX - kBlockHeader) / size) {
        return nullptr;
    }
    const size_t bytes = count * size + kBlockHeader;
    size_t mapped = 0;
    void* block = nullptr;
    if (bytes >= kPopulatedMinimum) {
        block =
            mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        mapped = block == MAP_FAILED ? 0 : bytes;
        block = block == MAP_FAILED ? nullptr : block;
    } else {
        block = std::malloc(bytes);
    }
    if (block == nullptr) {
        return nullptr;
    }
    std::memcpy(block, &mapped, sizeof mapped);
    return static_cast<uint8_t*>(block) + kBlockHeader;
}

void free_populated(void* /*opaque*/, void* pointer) {
    if (pointer == nullptr) {
        return;
    }
    uint8_t* block = static_cast<uint8_t*>(pointer) - kBlockHeader;
    size_t mapped = 0;
    std::memcpy(&mapped, block, sizeof mapped);
    if (mapped != 0) {
        munmap(block, mapped);
    } else {
        std::free(block);
    }
}

const lzma_allocator kPopulatedAllocator = {allocate_populated, free_populated, nullptr};

void put_u16(uint8_t* out, uint16_t value) {
    out[0] = static_cast<uint8_t>(value);
    out[1] = static_cast<uint8_t>(value >> 8);
}

void put_u32(uint8_t* out, uint32_t value) {
    for (int i = 0; i < 4; ++i) {
        out[i] = static_cast<uint8_t>(value >> (8 * i));
    }
}

uint16_t get_u16(const uint8_t* in) {
    return static_cast<uint16_t>(in[0] | (in[1] << 8));
}

uint32_t get_u32(const uint8_t* in) {
    uint32_t value = 0;
    for (int i = 3; i >= 0; --i) {
        value = (value << 8) | in[i];
    }
    return value;
}

FormatDamage corrupt(const std::string& what) {
    return FormatDamage(FormatDamage::Kind::Corrupt, what);
}

// Fills the header of `frame`, whose payload (compressed or stored) follows it.
void write_header(std::vector<uint8_t>& frame, uint16_t flags, uint32_t uncompressed_length) {
    const auto payload_length = static_cast<uint32_t>(frame.size() - kFrameHeaderSize);
    uint8_t* header = frame.data();
    std::memcpy(header, kMagic.data(), kMagic.size());
    put_u16(header + 4, static_cast<uint16_t>(schema::FORMAT_VERSION));
    put_u16(header + 6, flags);
    put_u32(header + 8, payload_length);
    put_u32(header + 12, uncompressed_length);
    put_u32(header + 16, lzma_crc32(header + kFrameHeaderSize, payload_length, 0));
    put_u32(header + 20, lzma_crc32(header, 20, 0));
}

} // namespace

struct FrameEncoder::State {
    lzma_stream stream = LZMA_STREAM_INIT;
    ~State() { lzma_end(&stream); }
};

FrameEncoder::FrameEncoder() : state_(std::make_unique<State>()) {
    state_->stream.allocator = &kPopulatedAllocator;
}

FrameEncoder::~FrameEncoder() = default;

std::vector<uint8_t> FrameEncoder::encode(std::span<const uint8_t> payload) {
    if (payload.size() > kMaxUncompressedFrameBytes) {
        throw std::length_error(
            fmt::format("event batch of {} bytes exceeds the frame limit", payload.size()));
    }
    if (payload.size() < kStoredFrameLimit) {
        std::vector<uint8_t> frame(kFrameHeaderSize + payload.size());
        std::copy(payload.begin(), payload.end(), frame.begin() + kFrameHeaderSize);
        write_header(frame, kFrameStored, static_cast<uint32_t>(payload.size()));
        return frame;
    }
    lzma_options_lzma options{};
    if (lzma_lzma_preset(&options, kCompressionPreset)) {
        throw std::runtime_error("xz compression preset is not supported by liblzma");
    }
    options.dict_size = dictionary_size_for(payload.size(), options.dict_size);
    // The 3-byte hash chain instead of the preset's 4-byte one: half the tables to clear (0.2 ms less for a
    // short recording here) and about 10% faster on 1 MiB frames, for frames about 0.5% larger.
    options.mf = LZMA_MF_HC3;
    std::array<lzma_filter, 2> filters = {lzma_filter{LZMA_FILTER_LZMA2, &options},
                                          lzma_filter{LZMA_VLI_UNKNOWN, nullptr}};
    // Initialising a stream that already encoded reuses its memory when the sizes allow.
    lzma_stream& stream = state_->stream;
    lzma_ret status = lzma_stream_encoder(&stream, filters.data(), LZMA_CHECK_NONE);
    std::vector<uint8_t> frame(kFrameHeaderSize + lzma_stream_buffer_bound(payload.size()));
    stream.next_in = payload.data();
    stream.avail_in = payload.size();
    stream.next_out = frame.data() + kFrameHeaderSize;
    stream.avail_out = frame.size() - kFrameHeaderSize;
    // The one-call encoder's bound holds here too (LZMA2 stores incompressible chunks as they are); were it
    // exceeded, lzma_code would stop making progress and report LZMA_BUF_ERROR.
    while (status == LZMA_OK) {
        status = lzma_code(&stream, LZMA_FINISH);
    }
    if (status != LZMA_STREAM_END) {
        throw std::runtime_error(
            fmt::format("xz compression failed (lzma status {})", static_cast<int>(status)));
    }
    frame.resize(frame.size() - stream.avail_out);
    write_header(frame, 0, static_cast<uint32_t>(payload.size()));
    return frame;
}

FrameHeader parse_frame_header(std::span<const uint8_t, kFrameHeaderSize> bytes) {
    const uint8_t* in = bytes.data();
    if (std::memcmp(in, kMagic.data(), kMagic.size()) != 0) {
        throw corrupt("bad frame magic (expected \"HRMF\")");
    }
    if (get_u32(in + 20) != lzma_crc32(in, 20, 0)) {
        throw corrupt("frame header checksum mismatch");
    }
    FrameHeader header;
    header.version = get_u16(in + 4);
    header.flags = get_u16(in + 6);
    header.compressed_length = get_u32(in + 8);
    header.uncompressed_length = get_u32(in + 12);
    header.payload_crc = get_u32(in + 16);
    if (header.version != schema::FORMAT_VERSION) {
        throw FormatDamage(FormatDamage::Kind::UnsupportedVersion,
                           fmt::format("frame has format version {}", header.version), header.version);
    }
    if ((header.flags & ~kFrameStored) != 0) {
        throw corrupt(fmt::format("frame has unknown flags {:#x}", header.flags));
    }
    if (header.compressed_length == 0 || header.compressed_length > kMaxCompressedFrameBytes) {
        throw corrupt(fmt::format("frame compressed length {} is out of range", header.compressed_length));
    }
    if (header.uncompressed_length == 0 || header.uncompressed_length > kMaxUncompressedFrameBytes ||
        header.uncompressed_length % 8 != 0) {
        throw corrupt(
            fmt::format("frame uncompressed length {} is out of range", header.uncompressed_length));
    }
    return header;
}

void check_frame_payload(const FrameHeader& header, std::span<const uint8_t> compressed) {
    if (compressed.size() != header.compressed_length) {
        throw corrupt("frame payload length does not match its header");
    }
    if (lzma_crc32(compressed.data(), compressed.size(), 0) != header.payload_crc) {
        throw corrupt("frame payload checksum mismatch");
    }
}

std::vector<uint8_t> decode_frame_payload(const FrameHeader& header, std::span<const uint8_t> compressed) {
    check_frame_payload(header, compressed);
    if ((header.flags & kFrameStored) != 0) {
        if (header.compressed_length != header.uncompressed_length) {
            throw corrupt("stored frame's two lengths differ");
        }
        return std::vector<uint8_t>(compressed.begin(), compressed.end());
    }
    std::vector<uint8_t> payload(header.uncompressed_length);
    uint64_t memory_limit = kDecoderMemoryLimit;
    size_t in_position = 0;
    size_t out_position = 0;
    lzma_ret status =
        lzma_stream_buffer_decode(&memory_limit, 0, nullptr, compressed.data(), &in_position,
                                  compressed.size(), payload.data(), &out_position, payload.size());
    if (status != LZMA_OK || in_position != compressed.size() || out_position != payload.size()) {
        throw corrupt(
            fmt::format("frame payload does not decompress to its declared {} bytes (lzma status {})",
                        header.uncompressed_length, static_cast<int>(status)));
    }
    return payload;
}

} // namespace hermit
