#include "GuestDirectoryRead.h"

#include "tracer/Task.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

namespace hermit::tracer::virt {

namespace {

// Larger buffers (rare: libc asks for 32 KiB) are left to the kernel rather than allocated here.
constexpr uint64_t kMaxBufferBytes = 1u << 20;

} // namespace

std::optional<int64_t> GuestDirectoryRead::read(Task& task, const SyscallStop& stop) {
    const uint64_t buffer_address = stop.args[1];
    const auto count = static_cast<unsigned int>(stop.args[2]); // the kernel takes an unsigned int
    if (count > kMaxBufferBytes) {
        return std::nullopt;
    }
    const UniqueFd directory = duplicate_guest_descriptor(task.host_pid(), static_cast<int>(stop.args[0]));
    if (directory.get() < 0) {
        return std::nullopt;
    }
    const off_t position = lseek(directory.get(), 0, SEEK_CUR);
    std::vector<uint8_t> records(count);
    const long length = syscall(SYS_getdents64, directory.get(), records.data(), records.size());
    if (length < 0) {
        return -errno;
    }
    if (length > 0 && !task.write(buffer_address, records.data(), static_cast<size_t>(length))) {
        if (position >= 0) {
            lseek(directory.get(), position, SEEK_SET);
        }
        return std::nullopt;
    }
    return length;
}

bool GuestDirectoryRead::reads(int number) {
    return number == SYS_getdents64;
}

} // namespace hermit::tracer::virt
