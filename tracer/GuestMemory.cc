#include "GuestMemory.h"

namespace hermit::tracer {

std::optional<std::vector<uint8_t>> GuestMemory::read_bytes(uint64_t address, size_t length) {
    std::vector<uint8_t> bytes(length);
    if (!read(address, bytes.data(), length)) {
        return std::nullopt;
    }
    return bytes;
}

std::optional<std::string> GuestMemory::read_string(uint64_t address, size_t max_length) {
    // Read in chunks that never cross a page boundary, so a string ending just before an unmapped page
    // is still readable.
    constexpr uint64_t kPageSize = 4096;
    std::string text;
    while (text.size() < max_length) {
        uint64_t chunk = kPageSize - (address % kPageSize);
        chunk = std::min<uint64_t>(chunk, max_length - text.size());
        char buffer[kPageSize];
        if (!read(address, buffer, chunk)) {
            return std::nullopt;
        }
        for (uint64_t index = 0; index < chunk; ++index) {
            if (buffer[index] == '\0') {
                text.append(buffer, index);
                return text;
            }
        }
        text.append(buffer, chunk);
        address += chunk;
    }
    return text;
}

} // namespace hermit::tracer
