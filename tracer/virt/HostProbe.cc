#include "HostProbe.h"

#include "formats/Error.h"

#include <asm/prctl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <spdlog/spdlog.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace hermit::tracer::virt {
namespace {

using Probe = bool (*)();

int run_probe(void* probe) {
    return (*static_cast<Probe*>(probe))() ? 0 : 1;
}

// Runs `probe` in a child task and returns whether it reported success. The child shares hermit's memory
// (CLONE_VM) and hermit waits until it exits (CLONE_VFORK): the per-task settings the probes try never
// reach hermit, and no address space is copied (a fork, which copies all of hermit's mappings, cost
// 1-4 ms per probe here).
bool in_child(Probe probe) {
    alignas(16) char stack[16384]; // the child runs on it while hermit is suspended
    const pid_t child = clone(run_probe, stack + sizeof stack, CLONE_VM | CLONE_VFORK | SIGCHLD, &probe);
    if (child < 0) {
        return false;
    }
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

} // namespace

bool probe_cpuid_faulting() {
    return in_child([] { return syscall(SYS_arch_prctl, ARCH_SET_CPUID, 0) == 0; });
}

bool probe_tsc_trapping() {
    return in_child([] { return prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0) == 0; });
}

bool probe_branch_counter() {
    perf_event_attr attributes;
    std::memset(&attributes, 0, sizeof attributes);
    attributes.size = sizeof attributes;
    attributes.type = PERF_TYPE_HARDWARE;
    attributes.config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
    attributes.exclude_kernel = 1;
    attributes.exclude_hv = 1;
    attributes.disabled = 1;
    const long fd = syscall(SYS_perf_event_open, &attributes, 0, -1, -1, 0);
    if (fd < 0) {
        return false;
    }
    close(static_cast<int>(fd));
    return true;
}

HostFacts probe_host() {
    HostFacts facts;
    utsname name{};
    if (uname(&name) == 0) {
        facts.kernel_release = name.release;
    }
    facts.cpuid_faulting = probe_cpuid_faulting();
    facts.tsc_trapping = probe_tsc_trapping();
    facts.pmu_available = probe_branch_counter();
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    facts.cpu_count = cpus > 0 ? static_cast<uint32_t>(cpus) : 0;
    return facts;
}

void enforce_host_requirements(const HostFacts& facts, bool strict) {
    if (!facts.cpuid_faulting) {
        const char* reason = "arch_prctl(ARCH_SET_CPUID) failed; the guest sees the host's real CPUID";
        if (strict) {
            throw Error(ErrorCode::CpuidFaultingUnavailable, reason);
        }
        spdlog::warn("CPUID faulting is not available: {}", reason);
    }
    if (!facts.tsc_trapping) {
        const char* reason = "prctl(PR_SET_TSC) failed; rdtsc returns the host's real time stamp counter";
        if (strict) {
            throw Error(ErrorCode::TscTrappingUnavailable, reason);
        }
        spdlog::warn("rdtsc trapping is not available: {}", reason);
    }
    if (!facts.pmu_available) {
        spdlog::info("no retired-branch counter (PMU): preemption happens only at scheduling points");
    }
}

} // namespace hermit::tracer::virt
