#pragma once
// GuestMemory: reads and writes the address space of one stopped guest thread. Implemented by Task over
// process_vm_readv/writev with a /proc/<tid>/mem fallback; pure code (decoders, formatters) takes this
// interface so it can be tested on a buffer.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hermit::tracer {

class GuestMemory {
public:
    virtual ~GuestMemory() = default;
    // Both return false when any byte of the range is unmapped.
    virtual bool read(uint64_t address, void* buffer, size_t length) = 0;
    virtual bool write(uint64_t address, const void* buffer, size_t length) = 0;

    std::optional<std::vector<uint8_t>> read_bytes(uint64_t address, size_t length);
    // Reads a NUL-terminated string of at most max_length bytes (not counting the NUL).
    virtual std::optional<std::string> read_string(uint64_t address, size_t max_length = 4096);
    template <typename T> std::optional<T> read_value(uint64_t address) {
        T value;
        if (!read(address, &value, sizeof value)) {
            return std::nullopt;
        }
        return value;
    }
    template <typename T> bool write_value(uint64_t address, const T& value) {
        return write(address, &value, sizeof value);
    }
};

} // namespace hermit::tracer
