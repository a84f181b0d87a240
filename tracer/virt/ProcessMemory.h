#pragma once
// ProcessMemory: GuestMemory over /proc/<pid>/mem. Unlike process_vm_writev, writes through this file
// reach read-only mappings too (the kernel forces them, copying the page for this process only, exactly
// as PTRACE_POKEDATA does), which is what patching the guest's vDSO needs. The caller must be allowed to
// ptrace `pid`.

#include "tracer/GuestMemory.h"

#include <sys/types.h>

namespace hermit::tracer::virt {

class ProcessMemory : public GuestMemory {
public:
    explicit ProcessMemory(pid_t pid);
    ~ProcessMemory() override;
    ProcessMemory(const ProcessMemory&) = delete;
    ProcessMemory& operator=(const ProcessMemory&) = delete;

    bool valid() const { return fd_ >= 0; }
    bool read(uint64_t address, void* buffer, size_t length) override;
    bool write(uint64_t address, const void* buffer, size_t length) override;

private:
    int fd_;
};

} // namespace hermit::tracer::virt
