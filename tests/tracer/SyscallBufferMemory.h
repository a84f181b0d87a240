#pragma once
// SyscallBufferMemory: a GuestMemory over zero-filled 4 KiB pages that exist only where a test placed
// data, for testing the decoders and formatters without a traced process. Reads touching a page never
// placed fail, as reads of unmapped guest memory do.

#include "tracer/GuestMemory.h"

#include <array>
#include <cstring>
#include <map>
#include <string>

namespace hermit::tracer::testing {

class SyscallBufferMemory : public GuestMemory {
public:
    static constexpr uint64_t kPageSize = 4096;

    // Maps the pages under [address, address + length) and copies the bytes there.
    void place(uint64_t address, const void* data, size_t length) {
        for (uint64_t page = address / kPageSize * kPageSize; page < address + length; page += kPageSize) {
            pages_.try_emplace(page);
        }
        write(address, data, length);
    }
    void place_string(uint64_t address, const std::string& text) {
        place(address, text.c_str(), text.size() + 1);
    }
    template <typename T> void place_value(uint64_t address, const T& value) {
        place(address, &value, sizeof value);
    }

    bool read(uint64_t address, void* buffer, size_t length) override {
        return copy(address, length, [&](uint8_t* page_bytes, size_t done, size_t count) {
            std::memcpy(static_cast<uint8_t*>(buffer) + done, page_bytes, count);
        });
    }
    bool write(uint64_t address, const void* buffer, size_t length) override {
        return copy(address, length, [&](uint8_t* page_bytes, size_t done, size_t count) {
            std::memcpy(page_bytes, static_cast<const uint8_t*>(buffer) + done, count);
        });
    }

private:
    template <typename Copy> bool copy(uint64_t address, size_t length, Copy&& copy_chunk) {
        for (uint64_t position = address; position < address + length;) {
            if (!pages_.contains(position / kPageSize * kPageSize)) {
                return false;
            }
            position = (position / kPageSize + 1) * kPageSize;
        }
        size_t done = 0;
        while (done < length) {
            uint64_t position = address + done;
            auto& page = pages_[position / kPageSize * kPageSize];
            size_t offset = position % kPageSize;
            size_t count = std::min<size_t>(kPageSize - offset, length - done);
            copy_chunk(page.data() + offset, done, count);
            done += count;
        }
        return true;
    }

    std::map<uint64_t, std::array<uint8_t, kPageSize>> pages_;
};

} // namespace hermit::tracer::testing
