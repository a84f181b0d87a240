#pragma once
// FileTimes: the times the guest sees on a file.
//
// A file nothing changed since the run began is an input: the guest sees its real modification, change and
// birth times, so a Python bytecode cache written outside matches its source and `make` compares the
// user's edits with earlier builds. A file the run changed (its change time is the run's or later) gets
// times from the virtual clock instead, the same in every run: its modification time is the virtual time
// at which the guest first sees it changed, kept until it changes again. Times the guest sets itself
// (utimensat with explicit values: `touch -d`, `tar x`, `cp -p`) are shown as set. Access times follow
// modification times: a read would move a real one, and runs would differ.
//
// The virtual clock's file time is kept from running behind a time the guest was shown (StatRewriter,
// VirtualClock::saw_file_time), so a file the run changes is newer than every input the guest compared it
// with (`make` relinks a program whose object it just rebuilt).

#include "VirtualClock.h"

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <set>
#include <utility>

namespace hermit::tracer::virt {

// A file's times in ns since 1970, as the host has them or as the guest is shown them.
struct FileTimeSet {
    int64_t access_ns = 0;
    int64_t modify_ns = 0;
    int64_t change_ns = 0;
    int64_t birth_ns = 0; // 0: unknown (the file system keeps none)
};

class FileTimes {
public:
    // Files whose modification and change times are earlier than `run_start_ns` (the host's coarse wall
    // clock when the run began) are inputs; a terminal the run wrote to is not (its modification time
    // moves). `clock` must outlive this.
    FileTimes(VirtualClock& clock, int64_t run_start_ns) : clock_(clock), run_start_ns_(run_start_ns) {}

    // What the guest sees of the file (device, inode) with these host times. `stored`: a regular file,
    // directory or symlink, whose times the file system keeps. Any other (a pipe, a socket, a terminal,
    // whose times move with I/O or are when it was made) shows the virtual time it is first seen at.
    FileTimeSet shown(uint64_t device, uint64_t inode, const FileTimeSet& host, bool stored);
    // The file is not an input however old its times (one the guest inherits open for its output).
    void not_input(uint64_t device, uint64_t inode) { not_inputs_.emplace(device, inode); }
    // The guest sets the file's access and modification times to these values (utimensat with times):
    // they are shown while its modification time stays the one set.
    void on_times_set(uint64_t device, uint64_t inode, int64_t access_ns, int64_t modify_ns);

private:
    struct Changed {
        int64_t host_modify_ns;
        int64_t host_change_ns;
        FileTimeSet shown;
    };

    VirtualClock& clock_;
    int64_t run_start_ns_;
    std::map<std::pair<uint64_t, uint64_t>, Changed> changed_;
    std::set<std::pair<uint64_t, uint64_t>> not_inputs_;
};

} // namespace hermit::tracer::virt
