#pragma once
// StatRewriter: replaces the run-dependent fields of the file metadata the kernel returned (stat, fstat,
// lstat, newfstatat, statx): every timestamp becomes the run's epoch, the device becomes
// InodeTable::kVirtualDevice and the inode a virtual one. Sizes, modes, link counts and owners are kept:
// they are what the guest's own actions determine.

#include "InodeTable.h"

#include <sys/stat.h>

#include <cstdint>

namespace hermit::tracer::virt {

class StatRewriter {
public:
    // `inodes` must outlive the rewriter.
    StatRewriter(InodeTable& inodes, int64_t epoch_ns) : inodes_(inodes), epoch_ns_(epoch_ns) {}

    void rewrite(struct stat& status) const;
    void rewrite(struct statx& status) const;

private:
    InodeTable& inodes_;
    int64_t epoch_ns_;
};

} // namespace hermit::tracer::virt
