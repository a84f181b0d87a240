#pragma once
// StatRewriter: replaces the run-dependent fields of the file metadata the kernel returned (stat, fstat,
// lstat, newfstatat, statx): times become what FileTimes shows, the device becomes
// InodeTable::kVirtualDevice and the inode a virtual one. Sizes, modes, link counts and owners are kept:
// they are what the guest's own actions determine.
//
// The clock then hears of the latest time shown (VirtualClock::saw_file_time). A replay, which shows the
// recorded metadata, tells the clock the same from what it shows (latest_time).

#include "FileTimes.h"
#include "InodeTable.h"

#include <sys/stat.h>

#include <cstdint>

namespace hermit::tracer::virt {

class StatRewriter {
public:
    // `inodes`, `times` and `clock` must outlive the rewriter.
    StatRewriter(InodeTable& inodes, FileTimes& times, VirtualClock& clock)
        : inodes_(inodes), times_(times), clock_(clock) {}

    void rewrite(struct stat& status) const;
    void rewrite(struct statx& status) const;

    // The latest of the times in a rewritten answer; 0 for a directory, whose times move with every file
    // made in it (a shell stats its working directory: the run before would move this run's file time).
    static int64_t latest_time(const struct stat& status);
    static int64_t latest_time(const struct statx& status);

private:
    InodeTable& inodes_;
    FileTimes& times_;
    VirtualClock& clock_;
};

} // namespace hermit::tracer::virt
