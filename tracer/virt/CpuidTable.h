#pragma once
// CpuidTable: the answers the guest gets from the CPUID instruction: a fixed "hermit virtual CPU" (vendor
// GenuineIntel, family 6 model 0x9e, 2 cores of 1 thread, fixed caches) whose feature bits are the host's
// features AND an allow-list. Allowed are the instruction-set extensions glibc and compilers select code
// by (SSE2..SSE4.2, AVX, AVX2, AVX-512, BMI, XSAVE, ...), because the guest executes on the real CPU and
// must not be told about features the host lacks. Masked are sources of nondeterminism and host leaks:
// RDRAND, RDSEED, RDPID, TSX (HLE/RTM), WAITPKG, the hypervisor bit, x2APIC/TSC-deadline, monitor/mwait
// and topology. The XSAVE leaf (0xd) passes the host's sizes through, because xsave writes as many
// bytes as the hardware's XCR0 requires; xgetbv itself cannot be trapped and reads the real XCR0.
// docs/USER_GUIDE.md ("What is virtualized") lists the table.

#include <cstdint>
#include <functional>

namespace hermit::tracer::virt {

struct CpuidRegisters {
    uint32_t eax = 0, ebx = 0, ecx = 0, edx = 0;
    bool operator==(const CpuidRegisters&) const = default;
};

// Executes the real CPUID instruction in the calling (tracer) process.
CpuidRegisters host_cpuid(uint32_t leaf, uint32_t subleaf);

class CpuidTable {
public:
    using HostQuery = std::function<CpuidRegisters(uint32_t leaf, uint32_t subleaf)>;

    static constexpr uint32_t kMaxBasicLeaf = 0xd;
    static constexpr uint32_t kMaxExtendedLeaf = 0x80000008;
    static constexpr uint32_t kLogicalCpus = 2;

    // Queries the host once per needed leaf, at construction.
    explicit CpuidTable(const HostQuery& host = host_cpuid);

    // The guest's answer; leaves the table does not define read as zeros.
    CpuidRegisters lookup(uint32_t leaf, uint32_t subleaf) const;

private:
    CpuidRegisters leaf1_, leaf7_, extended1_, extended8_;
    CpuidRegisters xsave_[64];
};

} // namespace hermit::tracer::virt
