#pragma once
// GuestDirectoryRead: a getdents64 done by the tracer on the guest's own open directory. hermit reads
// through a duplicate of the guest's descriptor (pidfd_getfd), which shares its open file and so its
// position, and copies the records into the guest's buffer: what the kernel's getdents64 would have done.
// The Session then runs the exit interceptors (the Virtualizer sorts the records, a recording keeps them)
// and answers the notification: one round trip where the kernel's own call and its exit stop cost two
// ptrace stops.

#include "tracer/SyscallInterceptor.h"

#include <cstdint>
#include <optional>

namespace hermit::tracer::virt {

class GuestDirectoryRead {
public:
    // getdents64(fd, buffer, count) of the guest: the records' length, 0 at the end, or a negative errno.
    // nullopt leaves the call to the kernel (the descriptor is gone, or the buffer cannot be written: the
    // position is then put back, so the kernel's own call reads the same records or fails as it would).
    static std::optional<int64_t> read(Task& task, const SyscallStop& stop);

    // SYS_getdents64, the call read() takes.
    static bool reads(int number);
};

} // namespace hermit::tracer::virt
