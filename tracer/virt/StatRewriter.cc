#include "StatRewriter.h"

#include <sys/sysmacros.h>

namespace hermit::tracer::virt {
namespace {

constexpr int64_t kNsPerSecond = 1000000000;

} // namespace

void StatRewriter::rewrite(struct stat& status) const {
    status.st_ino = inodes_.virtual_inode(status.st_dev, status.st_ino);
    status.st_dev = InodeTable::kVirtualDevice;
    const timespec epoch{epoch_ns_ / kNsPerSecond, epoch_ns_ % kNsPerSecond};
    status.st_atim = epoch;
    status.st_mtim = epoch;
    status.st_ctim = epoch;
}

void StatRewriter::rewrite(struct statx& status) const {
    const uint64_t device = makedev(status.stx_dev_major, status.stx_dev_minor);
    if (status.stx_mask & STATX_INO) {
        status.stx_ino = inodes_.virtual_inode(device, status.stx_ino);
    }
    status.stx_dev_major = major(InodeTable::kVirtualDevice);
    status.stx_dev_minor = minor(InodeTable::kVirtualDevice);
    const statx_timestamp epoch{epoch_ns_ / kNsPerSecond, static_cast<uint32_t>(epoch_ns_ % kNsPerSecond), 0};
    status.stx_atime = epoch;
    status.stx_btime = epoch;
    status.stx_ctime = epoch;
    status.stx_mtime = epoch;
    // The mount id numbers mounts in the order the host made them.
    status.stx_mnt_id = 1;
}

} // namespace hermit::tracer::virt
