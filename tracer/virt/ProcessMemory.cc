#include "ProcessMemory.h"

#include <fcntl.h>
#include <unistd.h>

#include <string>

namespace hermit::tracer::virt {

ProcessMemory::ProcessMemory(pid_t pid)
    : fd_(open(("/proc/" + std::to_string(pid) + "/mem").c_str(), O_RDWR | O_CLOEXEC)) {}

ProcessMemory::~ProcessMemory() {
    if (fd_ >= 0) {
        close(fd_);
    }
}

bool ProcessMemory::read(uint64_t address, void* buffer, size_t length) {
    auto* bytes = static_cast<char*>(buffer);
    while (length > 0) {
        const ssize_t done = pread(fd_, bytes, length, static_cast<off_t>(address));
        if (done <= 0) {
            return false;
        }
        bytes += done;
        address += static_cast<uint64_t>(done);
        length -= static_cast<size_t>(done);
    }
    return true;
}

bool ProcessMemory::write(uint64_t address, const void* buffer, size_t length) {
    const auto* bytes = static_cast<const char*>(buffer);
    while (length > 0) {
        const ssize_t done = pwrite(fd_, bytes, length, static_cast<off_t>(address));
        if (done <= 0) {
            return false;
        }
        bytes += done;
        address += static_cast<uint64_t>(done);
        length -= static_cast<size_t>(done);
    }
    return true;
}

} // namespace hermit::tracer::virt
