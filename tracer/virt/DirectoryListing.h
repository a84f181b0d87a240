#pragma once
// DirectoryListing: makes a getdents64 result deterministic. The kernel returns entries in the file
// system's internal order (hash order on ext4, creation order on tmpfs) with real inode numbers; this
// sorts the entries of one returned buffer by name (bytewise) and replaces each d_ino with the
// InodeTable number. Sorting is per call: a directory too large for one buffer is sorted within each
// chunk, and which names land in which chunk still follows the kernel's order. d_off values keep their
// positions (the last one is where the next call continues).

#include "InodeTable.h"

#include <cstdint>
#include <span>

namespace hermit::tracer::virt {

// `buffer` holds the `linux_dirent64` records getdents64 returned; `device` is the directory's st_dev.
// Returns false (and leaves the buffer alone) when the records are malformed.
bool virtualize_directory_entries(std::span<uint8_t> buffer, uint64_t device, InodeTable& inodes);

} // namespace hermit::tracer::virt
