#pragma once
// ProcessMemoryFile: a guest's memory through /proc/<tid>/mem. Unlike process_vm_writev it can write
// read-only pages (the vDSO's text, breakpoints); the page is copied for that process only. Open one for a
// batch of such writes: each open is a path walk through /proc.

#include "GuestMemory.h"
#include "formats/FileIo.h"

#include <sys/types.h>

namespace hermit::tracer {

class ProcessMemoryFile : public GuestMemory {
public:
    explicit ProcessMemoryFile(pid_t host_tid);

    bool read(uint64_t address, void* buffer, size_t length) override;
    bool write(uint64_t address, const void* buffer, size_t length) override;

private:
    UniqueFd file_;
};

} // namespace hermit::tracer
