#include "DirectoryListing.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string_view>
#include <vector>

namespace hermit::tracer::virt {
namespace {

// struct linux_dirent64 { u64 d_ino; s64 d_off; u16 d_reclen; u8 d_type; char d_name[]; }
constexpr size_t kInodeOffset = 0;
constexpr size_t kNextOffset = 8;
constexpr size_t kLengthOffset = 16;
constexpr size_t kNameOffset = 19;

struct Record {
    size_t offset;
    uint16_t length;
    std::string_view name;
};

} // namespace

bool virtualize_directory_entries(std::span<uint8_t> buffer, uint64_t device, InodeTable& inodes) {
    std::vector<Record> records;
    std::vector<int64_t> next_offsets;
    for (size_t offset = 0; offset < buffer.size();) {
        uint16_t length;
        if (offset + kNameOffset > buffer.size()) {
            return false;
        }
        std::memcpy(&length, &buffer[offset + kLengthOffset], sizeof length);
        if (length <= kNameOffset || offset + length > buffer.size()) {
            return false;
        }
        const auto* name = reinterpret_cast<const char*>(&buffer[offset + kNameOffset]);
        const size_t name_length = strnlen(name, length - kNameOffset);
        int64_t next;
        std::memcpy(&next, &buffer[offset + kNextOffset], sizeof next);
        records.push_back({offset, length, std::string_view(name, name_length)});
        next_offsets.push_back(next);
        offset += length;
    }
    std::stable_sort(records.begin(), records.end(),
                     [](const Record& a, const Record& b) { return a.name < b.name; });

    std::vector<uint8_t> sorted;
    sorted.reserve(buffer.size());
    for (size_t index = 0; index < records.size(); ++index) {
        const Record& record = records[index];
        const size_t start = sorted.size();
        sorted.insert(sorted.end(), buffer.begin() + static_cast<ptrdiff_t>(record.offset),
                      buffer.begin() + static_cast<ptrdiff_t>(record.offset + record.length));
        uint64_t inode;
        std::memcpy(&inode, &sorted[start + kInodeOffset], sizeof inode);
        inode = inodes.virtual_inode(device, inode);
        std::memcpy(&sorted[start + kInodeOffset], &inode, sizeof inode);
        std::memcpy(&sorted[start + kNextOffset], &next_offsets[index], sizeof next_offsets[index]);
    }
    std::copy(sorted.begin(), sorted.end(), buffer.begin());
    return true;
}

} // namespace hermit::tracer::virt
