#include "tracer/virt/CpuidTable.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace hermit::tracer::virt {
namespace {

constexpr uint32_t bit(int n) {
    return 1u << n;
}

// A host that claims every feature bit: whatever survives is exactly the allow-list.
CpuidRegisters every_feature(uint32_t leaf, uint32_t) {
    if (leaf == 0) {
        return {0x20, 0, 0, 0};
    }
    if (leaf == 0x80000000) {
        return {0x80000020, 0, 0, 0};
    }
    return {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff};
}

TEST(CpuidTableTest, MasksRandomNumberInstructionsHypervisorAndTsx) {
    for (const auto& table : {CpuidTable(), CpuidTable(every_feature)}) {
        const CpuidRegisters leaf1 = table.lookup(1, 0);
        EXPECT_EQ(leaf1.ecx & bit(30), 0u) << "RDRAND";
        EXPECT_EQ(leaf1.ecx & bit(31), 0u) << "hypervisor";
        const CpuidRegisters leaf7 = table.lookup(7, 0);
        EXPECT_EQ(leaf7.ebx & bit(18), 0u) << "RDSEED";
        EXPECT_EQ(leaf7.ebx & bit(11), 0u) << "RTM";
        EXPECT_EQ(leaf7.ebx & bit(4), 0u) << "HLE";
        EXPECT_EQ(leaf7.ecx & bit(22), 0u) << "RDPID";
    }
}

TEST(CpuidTableTest, KeepsOnlyFeaturesTheHostHas) {
    const CpuidTable table;
    const CpuidRegisters host1 = host_cpuid(1, 0);
    const CpuidRegisters virtual1 = table.lookup(1, 0);
    EXPECT_EQ(virtual1.ecx & ~host1.ecx, 0u);
    EXPECT_EQ(virtual1.ecx & bit(20), host1.ecx & bit(20)) << "SSE4.2 follows the host";
    EXPECT_EQ(virtual1.edx & bit(26), host1.edx & bit(26)) << "SSE2 follows the host";
    const CpuidRegisters host7 = host_cpuid(7, 0);
    EXPECT_EQ(table.lookup(7, 0).ebx & bit(5), host7.ebx & bit(5)) << "AVX2 follows the host";
    // The XSAVE area size must be the hardware's, or xsave would overflow the buffer glibc sized by it.
    if (virtual1.ecx & bit(26)) {
        EXPECT_EQ(table.lookup(0xd, 0).ebx, host_cpuid(0xd, 0).ebx);
    }
}

TEST(CpuidTableTest, ReportsTheHermitVirtualCpu) {
    const CpuidTable table(every_feature);
    const CpuidRegisters leaf0 = table.lookup(0, 0);
    char vendor[13] = {};
    std::memcpy(vendor, &leaf0.ebx, 4);
    std::memcpy(vendor + 4, &leaf0.edx, 4);
    std::memcpy(vendor + 8, &leaf0.ecx, 4);
    EXPECT_STREQ(vendor, "GenuineIntel");
    EXPECT_EQ(leaf0.eax, CpuidTable::kMaxBasicLeaf);

    std::string brand;
    for (uint32_t leaf = 0x80000002; leaf <= 0x80000004; ++leaf) {
        const CpuidRegisters part = table.lookup(leaf, 0);
        for (uint32_t value : {part.eax, part.ebx, part.ecx, part.edx}) {
            brand.append(reinterpret_cast<const char*>(&value), 4);
        }
    }
    EXPECT_STREQ(brand.c_str(), "hermit virtual CPU");
    EXPECT_EQ((table.lookup(1, 0).ebx >> 16) & 0xff, CpuidTable::kLogicalCpus);
    EXPECT_EQ(table.lookup(0xb, 1).ebx, CpuidTable::kLogicalCpus);
    EXPECT_EQ(table.lookup(0x40000000, 0), CpuidRegisters{}) << "no hypervisor leaves";
    EXPECT_EQ(table.lookup(4, 0).eax & 0x1f, 1u) << "L1 data cache";
    EXPECT_EQ(table.lookup(4, 4).eax & 0x1f, 0u) << "end of the cache list";
}

} // namespace
} // namespace hermit::tracer::virt
