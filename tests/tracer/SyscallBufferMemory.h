#pragma once
// SyscallBufferMemory: a GuestMemory over byte buffers placed at chosen guest addresses, for testing the
// decoders and formatters without a traced process. Reads outside every placed buffer fail, as reads
// of unmapped guest memory do.

#include "tracer/GuestMemory.h"

#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace hermit::tracer::testing {

class SyscallBufferMemory : public GuestMemory {
public:
    // Copies `length` bytes to guest address `address`.
    void place(uint64_t address, const void* data, size_t length) {
        const auto* bytes = static_cast<const uint8_t*>(data);
        regions_[address] = std::vector<uint8_t>(bytes, bytes + length);
    }
    void place_string(uint64_t address, const std::string& text) { place(address, text.c_str(), text.size() + 1); }
    template <typename T> void place_value(uint64_t address, const T& value) { place(address, &value, sizeof value); }

    bool read(uint64_t address, void* buffer, size_t length) override {
        auto* region = find(address, length);
        if (!region) {
            return false;
        }
        std::memcpy(buffer, region->second.data() + (address - region->first), length);
        return true;
    }
    bool write(uint64_t address, const void* buffer, size_t length) override {
        auto* region = find(address, length);
        if (!region) {
            return false;
        }
        std::memcpy(region->second.data() + (address - region->first), buffer, length);
        return true;
    }

private:
    std::pair<const uint64_t, std::vector<uint8_t>>* find(uint64_t address, size_t length) {
        auto next = regions_.upper_bound(address);
        if (next == regions_.begin()) {
            return nullptr;
        }
        auto& region = *std::prev(next);
        if (address + length > region.first + region.second.size()) {
            return nullptr;
        }
        return &region;
    }

    std::map<uint64_t, std::vector<uint8_t>> regions_;
};

} // namespace hermit::tracer::testing
