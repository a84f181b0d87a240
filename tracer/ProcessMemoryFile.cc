#include "ProcessMemoryFile.h"

#include <fcntl.h>
#include <unistd.h>

#include <string>

namespace hermit::tracer {

ProcessMemoryFile::ProcessMemoryFile(pid_t host_tid)
    : file_(open(("/proc/" + std::to_string(host_tid) + "/mem").c_str(), O_RDWR | O_CLOEXEC)) {}

namespace {

bool transfer(int file, uint64_t address, char* buffer, size_t length, bool writing) {
    for (size_t done = 0; done < length;) {
        const auto offset = static_cast<off_t>(address + done);
        const ssize_t count = writing ? pwrite(file, buffer + done, length - done, offset)
                                      : pread(file, buffer + done, length - done, offset);
        if (count <= 0) {
            return false;
        }
        done += static_cast<size_t>(count);
    }
    return true;
}

} // namespace

bool ProcessMemoryFile::read(uint64_t address, void* buffer, size_t length) {
    return transfer(file_.get(), address, static_cast<char*>(buffer), length, false);
}

bool ProcessMemoryFile::write(uint64_t address, const void* buffer, size_t length) {
    return transfer(file_.get(), address, static_cast<char*>(const_cast<void*>(buffer)), length, true);
}

} // namespace hermit::tracer
