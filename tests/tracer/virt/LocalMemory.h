#pragma once
// LocalMemory: GuestMemory over the test process's own address space, through process_vm_readv/writev on
// itself, so reading an unmapped address fails instead of crashing the test.

#include "tracer/GuestMemory.h"

#include <sys/uio.h>
#include <unistd.h>

namespace hermit::tracer::virt::testing {

class LocalMemory : public GuestMemory {
public:
    bool read(uint64_t address, void* buffer, size_t length) override {
        iovec local{buffer, length};
        iovec remote{reinterpret_cast<void*>(address), length};
        return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(length);
    }
    bool write(uint64_t address, const void* buffer, size_t length) override {
        iovec local{const_cast<void*>(buffer), length};
        iovec remote{reinterpret_cast<void*>(address), length};
        return process_vm_writev(getpid(), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(length);
    }
};

} // namespace hermit::tracer::virt::testing
