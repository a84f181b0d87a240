#include "InodeTable.h"

namespace hermit::tracer::virt {

uint64_t InodeTable::virtual_inode(uint64_t device, uint64_t inode) {
    const auto [position, inserted] = inodes_.try_emplace({device, inode}, kFirstInode + inodes_.size());
    return position->second;
}

} // namespace hermit::tracer::virt
