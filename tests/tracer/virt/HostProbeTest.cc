#include "tracer/virt/HostProbe.h"

#include "formats/Error.h"

#include <gtest/gtest.h>

#include <asm/prctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <x86intrin.h>

namespace hermit::tracer::virt {
namespace {

TEST(HostProbeTest, CpuidFaultingProbeAgreesWithTheKernel) {
    // ARCH_GET_CPUID works everywhere; ARCH_SET_CPUID fails with ENODEV where faulting is unsupported.
    ASSERT_EQ(syscall(SYS_arch_prctl, ARCH_GET_CPUID, 0), 1) << "CPUID is already faulting in the test";
    const bool probed = probe_cpuid_faulting();
    // The probe ran in a child: the test process still executes cpuid natively.
    EXPECT_EQ(syscall(SYS_arch_prctl, ARCH_GET_CPUID, 0), 1);
    const HostFacts facts = probe_host();
    EXPECT_EQ(facts.cpuid_faulting, probed);
    EXPECT_FALSE(facts.kernel_release.empty());
    EXPECT_GT(facts.cpu_count, 0u);
}

TEST(HostProbeTest, TscProbeExecutesRdtscInAChildOnly) {
    const bool probed = probe_tsc_trapping();
    // The probe's rdtsc faulted (or ran) in the child; here rdtsc still runs natively.
    int mode = 0;
    ASSERT_EQ(prctl(PR_GET_TSC, &mode, 0, 0, 0), 0);
    EXPECT_EQ(mode, PR_TSC_ENABLE);
    EXPECT_GT(__rdtsc(), 0u);
    EXPECT_EQ(probe_host().tsc_trapping, probed);
}

TEST(HostProbeTest, StrictFailsOnAMissingFeatureAndLenientWarns) {
    HostFacts facts;
    facts.cpuid_faulting = false;
    facts.tsc_trapping = true;
    try {
        enforce_host_requirements(facts, true);
        ADD_FAILURE() << "strict accepted a host without CPUID faulting";
    } catch (const Error& error) {
        EXPECT_EQ(error.code(), ErrorCode::CpuidFaultingUnavailable);
    }
    facts.cpuid_faulting = true;
    facts.tsc_trapping = false;
    try {
        enforce_host_requirements(facts, true);
        ADD_FAILURE() << "strict accepted a host without rdtsc trapping";
    } catch (const Error& error) {
        EXPECT_EQ(error.code(), ErrorCode::TscTrappingUnavailable);
    }
    EXPECT_NO_THROW(enforce_host_requirements(facts, false));
}

} // namespace
} // namespace hermit::tracer::virt
