#include "SharedMemory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <utility>

namespace hermit::tracer {

SharedMemory SharedMemory::map(const UniqueFd& file, size_t length) {
    struct stat info {};
    const int seals = fcntl(file.get(), F_GET_SEALS);
    if (seals < 0 || (seals & F_SEAL_SHRINK) == 0 || fstat(file.get(), &info) != 0 ||
        static_cast<uint64_t>(info.st_size) < length) {
        return {};
    }
    void* address = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, file.get(), 0);
    return address == MAP_FAILED ? SharedMemory{} : SharedMemory(static_cast<uint8_t*>(address), length);
}

SharedMemory::SharedMemory(SharedMemory&& other) noexcept
    : address_(std::exchange(other.address_, nullptr)), length_(std::exchange(other.length_, 0)) {}

SharedMemory& SharedMemory::operator=(SharedMemory&& other) noexcept {
    if (this != &other) {
        unmap();
        address_ = std::exchange(other.address_, nullptr);
        length_ = std::exchange(other.length_, 0);
    }
    return *this;
}

SharedMemory::~SharedMemory() {
    unmap();
}

void SharedMemory::unmap() {
    if (address_ != nullptr) {
        munmap(address_, length_);
    }
}

} // namespace hermit::tracer
