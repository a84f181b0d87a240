#pragma once
// InodeTable: gives every file the guest looks at a virtual inode number in first-seen order. Real inode
// numbers depend on the file system's history (a file recreated by a build gets a new one), so they differ
// between runs; the order in which a deterministic guest first sees files does not. One table per run,
// keyed by the real (device, inode) pair, so two different files never share a virtual number and a
// file keeps its number however it is reached (stat, fstat, getdents).

#include <cstdint>
#include <map>
#include <utility>

namespace hermit::tracer::virt {

class InodeTable {
public:
    static constexpr uint64_t kFirstInode = 2;
    // The one device number the guest sees for every file.
    static constexpr uint64_t kVirtualDevice = 0x2a;

    uint64_t virtual_inode(uint64_t device, uint64_t inode);

private:
    std::map<std::pair<uint64_t, uint64_t>, uint64_t> inodes_;
};

} // namespace hermit::tracer::virt
