#pragma once
// SharedMemory: hermit's mapping of memory a guest maps too (a memfd it hands over), unmapped with the
// object. Reads and writes through it are memory accesses, where those of the guest's memory by address
// are a syscall each (process_vm_readv): the syscall buffer's header and entries, at every stop.

#include "formats/FileIo.h"

#include <cstddef>
#include <cstdint>
#include <span>

namespace hermit::tracer {

class SharedMemory {
public:
    SharedMemory() = default;
    // `length` bytes of the memfd `file`, which must be sealed against shrinking (F_SEAL_SHRINK) and hold
    // them: a file cut short under the mapping would fault hermit's accesses. Empty when it is not so.
    static SharedMemory map(const UniqueFd& file, size_t length);

    SharedMemory(SharedMemory&& other) noexcept;
    SharedMemory& operator=(SharedMemory&& other) noexcept;
    SharedMemory(const SharedMemory&) = delete;
    SharedMemory& operator=(const SharedMemory&) = delete;
    ~SharedMemory();

    std::span<uint8_t> bytes() const { return {address_, length_}; }
    bool empty() const { return address_ == nullptr; }

private:
    SharedMemory(uint8_t* address, size_t length) : address_(address), length_(length) {}
    void unmap();

    uint8_t* address_ = nullptr;
    size_t length_ = 0;
};

} // namespace hermit::tracer
