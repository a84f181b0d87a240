#include "HostProbe.h"

#include "formats/Error.h"

#include <asm/prctl.h>
#include <cpuid.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <x86intrin.h>

#include <cerrno>
#include <cstring>
#include <mutex>

namespace hermit::tracer::virt {
namespace {

// Runs `probe` in a child task and returns whether it reported success. The child shares hermit's memory
// (CLONE_VM) and hermit waits until it exits (CLONE_VFORK): the per-task settings the probes try never
// reach hermit, and no address space is copied (a fork, which copies all of hermit's mappings, cost
// 1-4 ms per probe here).
template <typename Probe> bool in_child(Probe probe) {
    alignas(16) char stack[16384]; // the child runs on it while hermit is suspended
    const auto run = [](void* argument) { return (*static_cast<Probe*>(argument))() ? 0 : 1; };
    const pid_t child = clone(run, stack + sizeof stack, CLONE_VM | CLONE_VFORK | SIGCHLD, &probe);
    if (child < 0) {
        return false;
    }
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// Whether `execute` faults once `enable` succeeded. Some hosts accept the prctl while the instruction
// still runs natively (a CI machine's guests read the real time stamp counter). The child's SIGSEGV
// handler, in its own copy of hermit's handlers (no CLONE_SIGHAND), reports the fault as success.
bool instruction_faults(bool (*enable)(), void (*execute)()) {
    return in_child([enable, execute] {
        struct sigaction on_fault {};
        on_fault.sa_handler = [](int) { _exit(0); };
        sigset_t fault;
        sigemptyset(&fault);
        sigaddset(&fault, SIGSEGV);
        if (sigaction(SIGSEGV, &on_fault, nullptr) != 0 || sigprocmask(SIG_UNBLOCK, &fault, nullptr) != 0 ||
            !enable()) {
            return false;
        }
        execute();
        return false;
    });
}

} // namespace

bool probe_cpuid_faulting() {
    return instruction_faults([] { return syscall(SYS_arch_prctl, ARCH_SET_CPUID, 0) == 0; },
                              [] {
                                  unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;
                                  __cpuid(0, eax, ebx, ecx, edx);
                                  asm volatile("" : : "r"(eax), "r"(ebx), "r"(ecx), "r"(edx));
                              });
}

bool probe_tsc_trapping() {
    return instruction_faults([] { return prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0) == 0; },
                              [] {
                                  const unsigned long long counter = __rdtsc();
                                  asm volatile("" : : "r"(counter));
                              });
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
    // Said once per hermit process: a debugged replay starts its guest again at every step back.
    static std::once_flag cpuid_warned;
    static std::once_flag tsc_warned;
    static std::once_flag pmu_noted;
    if (!facts.cpuid_faulting) {
        const char* reason =
            "cpuid does not fault after arch_prctl(ARCH_SET_CPUID); the guest sees the host's real CPUID";
        if (strict) {
            throw Error(ErrorCode::CpuidFaultingUnavailable, reason);
        }
        std::call_once(cpuid_warned, [&] { spdlog::warn("CPUID faulting is not available: {}", reason); });
    }
    if (!facts.tsc_trapping) {
        const char* reason = "rdtsc does not fault after prctl(PR_SET_TSC); the guest reads the host's real "
                             "time stamp counter";
        if (strict) {
            throw Error(ErrorCode::TscTrappingUnavailable, reason);
        }
        std::call_once(tsc_warned, [&] { spdlog::warn("rdtsc trapping is not available: {}", reason); });
    }
    if (!facts.pmu_available) {
        std::call_once(pmu_noted, [] {
            spdlog::info("no retired-branch counter (PMU): preemption happens only at scheduling points");
        });
    }
}

} // namespace hermit::tracer::virt
