#include "AuxiliaryVector.h"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

namespace hermit::tracer::virt {

AuxiliaryVector AuxiliaryVector::parse(std::span<const uint8_t> raw) {
    AuxiliaryVector vector;
    constexpr size_t kEntrySize = 2 * sizeof(uint64_t);
    for (size_t offset = 0; offset + kEntrySize <= raw.size(); offset += kEntrySize) {
        uint64_t pair[2];
        std::memcpy(pair, raw.data() + offset, kEntrySize);
        if (pair[0] == AT_NULL) {
            break;
        }
        vector.entries_.emplace_back(pair[0], pair[1]);
    }
    return vector;
}

AuxiliaryVector AuxiliaryVector::of_process(pid_t pid) {
    std::ifstream file("/proc/" + std::to_string(pid) + "/auxv", std::ios::binary);
    const std::vector<uint8_t> raw{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
    return parse(raw);
}

std::optional<uint64_t> AuxiliaryVector::value(uint64_t type) const {
    for (const auto& [entry_type, entry_value] : entries_) {
        if (entry_type == type) {
            return entry_value;
        }
    }
    return std::nullopt;
}

} // namespace hermit::tracer::virt
