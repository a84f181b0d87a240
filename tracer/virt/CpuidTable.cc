#include "CpuidTable.h"

#include <cpuid.h>

#include <cstring>

namespace hermit::tracer::virt {
namespace {

constexpr uint32_t bit(int n) {
    return 1u << n;
}

// Leaf 1 ECX: SSE3, PCLMULQDQ, SSSE3, FMA, CMPXCHG16B, SSE4.1, SSE4.2, MOVBE, POPCNT, AES, XSAVE, OSXSAVE,
// AVX, F16C. Masked: MONITOR, VMX, SMX, EST, PCID, x2APIC, TSC-deadline, RDRAND (30), hypervisor (31).
constexpr uint32_t kLeaf1EcxAllowed = bit(0) | bit(1) | bit(9) | bit(12) | bit(13) | bit(19) | bit(20) |
                                      bit(22) | bit(23) | bit(25) | bit(26) | bit(27) | bit(28) | bit(29);
// Leaf 1 EDX: FPU, VME, DE, PSE, TSC, MSR, PAE, MCE, CX8, APIC, SEP, MTRR, PGE, MCA, CMOV, PAT, PSE36,
// CLFLUSH, MMX, FXSR, SSE, SSE2. HTT (28) is set by the table itself.
constexpr uint32_t kLeaf1EdxAllowed = bit(0) | bit(1) | bit(2) | bit(3) | bit(4) | bit(5) | bit(6) | bit(7) |
                                      bit(8) | bit(9) | bit(11) | bit(12) | bit(13) | bit(14) | bit(15) |
                                      bit(16) | bit(17) | bit(19) | bit(23) | bit(24) | bit(25) | bit(26);
// Leaf 7 EBX: FSGSBASE, BMI1, AVX2, BMI2, ERMS, AVX512F, AVX512DQ, ADX, AVX512IFMA, CLFLUSHOPT, CLWB,
// AVX512CD, SHA, AVX512BW, AVX512VL. Masked: HLE (4), RTM (11), RDSEED (18), SMEP/SMAP, INVPCID, MPX.
constexpr uint32_t kLeaf7EbxAllowed = bit(0) | bit(3) | bit(5) | bit(8) | bit(9) | bit(16) | bit(17) |
                                      bit(19) | bit(21) | bit(23) | bit(24) | bit(28) | bit(29) | bit(30) |
                                      bit(31);
// Leaf 7 ECX: AVX512VBMI, AVX512VBMI2, GFNI, VAES, VPCLMULQDQ, AVX512VNNI, AVX512BITALG, AVX512VPOPCNTDQ.
// Masked: WAITPKG (5, its timed waits read the TSC), RDPID (22, reads the processor id), PKU, UMIP.
constexpr uint32_t kLeaf7EcxAllowed =
    bit(1) | bit(6) | bit(8) | bit(9) | bit(10) | bit(11) | bit(12) | bit(14);
// Leaf 7 EDX: FSRM (fast short rep movsb, used by glibc's memcpy selection). Everything else masked (TSX
// force-abort, hybrid, speculation-control bits).
constexpr uint32_t kLeaf7EdxAllowed = bit(4);
// Leaf 0x80000001 ECX: LAHF/SAHF, LZCNT, SSE4a, PREFETCHW. EDX: SYSCALL, NX, 1 GiB pages, RDTSCP (trapped
// like rdtsc), long mode.
constexpr uint32_t kExtended1EcxAllowed = bit(0) | bit(5) | bit(6) | bit(8);
constexpr uint32_t kExtended1EdxAllowed = bit(11) | bit(20) | bit(26) | bit(27) | bit(29);
// XCR0 components reported in leaf 0xd: x87, SSE, AVX, AVX-512 opmask, ZMM_Hi256, Hi16_ZMM.
constexpr uint32_t kXsaveComponentsAllowed = bit(0) | bit(1) | bit(2) | bit(5) | bit(6) | bit(7);
// Leaf 0xd subleaf 1 EAX: XSAVEOPT, XSAVEC, XGETBV with ECX=1, XSAVES.
constexpr uint32_t kXsaveSubleaf1Allowed = bit(0) | bit(1) | bit(2) | bit(3);

// Family 6, model 0x9e, stepping 10.
constexpr uint32_t kSignature = (0x9 << 16) | (6 << 8) | (0xe << 4) | 0xa;

uint32_t four_chars(const char* text) {
    uint32_t value;
    std::memcpy(&value, text, 4);
    return value;
}

// One leaf-4 cache descriptor: type (1 data, 2 instruction, 3 unified), level, ways, sets, and how many
// logical CPUs share it. Lines are 64 bytes, one partition.
CpuidRegisters cache(uint32_t type, uint32_t level, uint32_t ways, uint32_t sets, uint32_t sharing) {
    CpuidRegisters r;
    r.eax = type | (level << 5) | bit(8) | ((sharing - 1) << 14) | ((CpuidTable::kLogicalCpus - 1) << 26);
    r.ebx = ((ways - 1) << 22) | 63;
    r.ecx = sets - 1;
    return r;
}

} // namespace

CpuidRegisters host_cpuid(uint32_t leaf, uint32_t subleaf) {
    CpuidRegisters r;
    __cpuid_count(leaf, subleaf, r.eax, r.ebx, r.ecx, r.edx);
    return r;
}

CpuidTable::CpuidTable(const HostQuery& host) {
    const CpuidRegisters host0 = host(0, 0);
    const CpuidRegisters host_extended0 = host(0x80000000, 0);
    auto host_leaf = [&](uint32_t leaf, uint32_t subleaf) {
        const uint32_t max = leaf >= 0x80000000 ? host_extended0.eax : host0.eax;
        return leaf <= max ? host(leaf, subleaf) : CpuidRegisters{};
    };

    const CpuidRegisters h1 = host_leaf(1, 0);
    leaf1_.eax = kSignature;
    // CLFLUSH line 8 * 8 bytes, 2 logical CPUs, initial APIC id 0.
    leaf1_.ebx = (8 << 8) | (kLogicalCpus << 16);
    leaf1_.ecx = h1.ecx & kLeaf1EcxAllowed;
    leaf1_.edx = (h1.edx & kLeaf1EdxAllowed) | bit(28);

    const CpuidRegisters h7 = host_leaf(7, 0);
    leaf7_.ebx = h7.ebx & kLeaf7EbxAllowed;
    leaf7_.ecx = h7.ecx & kLeaf7EcxAllowed;
    leaf7_.edx = h7.edx & kLeaf7EdxAllowed;

    const CpuidRegisters he1 = host_leaf(0x80000001, 0);
    extended1_.ecx = he1.ecx & kExtended1EcxAllowed;
    extended1_.edx = he1.edx & kExtended1EdxAllowed;

    // 39 physical and 48 virtual address bits; 2 cores (the AMD-style count in ECX).
    extended8_.eax = 39 | (48 << 8);
    extended8_.ecx = kLogicalCpus - 1;

    if (leaf1_.ecx & bit(26)) {
        // Only the subleaves kept are asked for: each CPUID exits to the hypervisor in a VM, and asking
        // for all 64 was about 1 ms of every hermit start here.
        for (uint32_t subleaf = 0; subleaf < 32; ++subleaf) {
            if (subleaf < 2 || (kXsaveComponentsAllowed & bit(static_cast<int>(subleaf)))) {
                xsave_[subleaf] = host_leaf(0xd, subleaf);
            }
        }
        xsave_[0].eax &= kXsaveComponentsAllowed;
        xsave_[0].edx = 0;
        xsave_[1].eax &= kXsaveSubleaf1Allowed;
        xsave_[1].ecx = 0;
        xsave_[1].edx = 0;
    }
}

CpuidRegisters CpuidTable::lookup(uint32_t leaf, uint32_t subleaf) const {
    static const char kBrand[49] = "hermit virtual CPU";
    switch (leaf) {
    case 0:
        return {kMaxBasicLeaf, four_chars("Genu"), four_chars("ntel"), four_chars("ineI")};
    case 1:
        return leaf1_;
    case 2:
        // Descriptor 0xff: "see leaf 4 for the caches".
        return {0x0000ff01, 0, 0, 0};
    case 4:
        switch (subleaf) {
        case 0:
            return cache(1, 1, 8, 64, 1); // L1d 32 KiB, 8-way
        case 1:
            return cache(2, 1, 8, 64, 1); // L1i 32 KiB, 8-way
        case 2:
            return cache(3, 2, 16, 1024, 1); // L2 1 MiB, 16-way
        case 3:
            return cache(3, 3, 16, 8192, kLogicalCpus); // L3 8 MiB, 16-way, shared
        default:
            return {};
        }
    case 7:
        return subleaf == 0 ? leaf7_ : CpuidRegisters{};
    case 0xb:
        // Topology: level 0 = SMT (1 thread per core), level 1 = core (2 cores); x2APIC id 0.
        switch (subleaf) {
        case 0:
            return {0, 1, (1 << 8) | subleaf, 0};
        case 1:
            return {1, kLogicalCpus, (2 << 8) | subleaf, 0};
        default:
            return {0, 0, subleaf, 0};
        }
    case 0xd:
        return subleaf < 64 ? xsave_[subleaf] : CpuidRegisters{};
    case 0x80000000:
        return {kMaxExtendedLeaf, 0, 0, 0};
    case 0x80000001:
        return extended1_;
    case 0x80000002:
    case 0x80000003:
    case 0x80000004: {
        const char* part = kBrand + (leaf - 0x80000002) * 16;
        return {four_chars(part), four_chars(part + 4), four_chars(part + 8), four_chars(part + 12)};
    }
    case 0x80000006:
        // L2: 1024 KiB, 8-way (code 6), 64-byte lines.
        return {0, 0, (1024u << 16) | (6 << 12) | 64, 0};
    case 0x80000007:
        // Invariant TSC: the virtual TSC never stops or changes rate.
        return {0, 0, 0, bit(8)};
    case 0x80000008:
        return extended8_;
    default:
        return {};
    }
}

} // namespace hermit::tracer::virt
