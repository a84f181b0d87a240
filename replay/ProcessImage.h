#pragma once
// ProcessImage: what one ptrace-stopped thread and its process hold in themselves, kept to be put back in
// place later: every register set of the thread and the contents of every writable mapping. A Diversion
// undoes gdb's inferior calls with it; the replay timeline jumps back with it to a position inside a
// stretch without events, where nothing outside the process has changed since.
//
// Not kept: the mappings themselves (a restore expects the same ones), read-only memory (gdb's int3s
// stay as they are), and anything outside the process (descriptors, other processes). What the kernel
// holds for the process is summed up instead (kernel_state_unchanged()): a replay lets many syscalls
// through untrapped (brk, mmap, close, sigaction, ...), and an image from before one of them must not be
// restored once it ran, or running on from the image would meet another kernel state than it did.

#include "tracer/Task.h"

#include <sys/types.h>
#include <sys/user.h>

#include <cstdint>
#include <string>
#include <vector>

namespace hermit::replay {

class ProcessImage {
public:
    struct Region {
        uint64_t start = 0;
        uint64_t end = 0;
        bool writable = false;
        std::vector<uint8_t> bytes; // writable regions only (empty: not readable, a device's mapping)
    };

    // Takes the image of `task` (ptrace-stopped) and its process.
    explicit ProcessImage(tracer::Task& task);

    // Writes the memory and then the registers back into `task`, which must be the same thread.
    void restore(tracer::Task& task) const;

    // Whether what the kernel holds for the thread's process is as when the image was taken: mappings,
    // descriptors (targets, offsets, flags), signal masks and dispositions.
    bool kernel_state_unchanged(const tracer::Task& task) const;

    const user_regs_struct& registers() const { return registers_; }
    const std::vector<Region>& regions() const { return regions_; }
    // The mappings of a process now, from /proc/<pid>/maps (no bytes).
    static std::vector<Region> mappings(pid_t host_pid);

private:
    user_regs_struct registers_{};
    std::vector<uint8_t> extended_state_; // NT_X86_XSTATE: floating point and vector registers
    std::vector<Region> regions_;
    std::string kernel_state_;
};

} // namespace hermit::replay
