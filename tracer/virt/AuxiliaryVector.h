#pragma once
// AuxiliaryVector: the (type, value) pairs the kernel passed to a process at exec (getauxval). hermit
// reads them from /proc/<pid>/auxv to find the vDSO (AT_SYSINFO_EHDR) and the 16 AT_RANDOM bytes that
// seed the guest's stack protector and pointer guard.

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace hermit::tracer::virt {

class AuxiliaryVector {
public:
    // Parses the raw form (pairs of native 64-bit words, ending at AT_NULL).
    static AuxiliaryVector parse(std::span<const uint8_t> raw);
    // Reads /proc/<pid>/auxv; empty when it cannot be read.
    static AuxiliaryVector of_process(pid_t pid);

    std::optional<uint64_t> value(uint64_t type) const;

private:
    std::vector<std::pair<uint64_t, uint64_t>> entries_;
};

} // namespace hermit::tracer::virt
