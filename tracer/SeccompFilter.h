#pragma once
// SeccompFilter: the BPF program that decides which guest syscalls stop at the tracer. Syscalls in the
// trapped set return SECCOMP_RET_TRACE (a ptrace stop, ~120 us); every other syscall is allowed and runs
// at native speed. The program is built in the tracer, before fork, so the child only has to install it.

#include "SyscallInterceptor.h"

#include <linux/filter.h>

#include <cstdint>

#include <set>
#include <vector>

namespace hermit::tracer {

// Syscalls let through untrapped when made from one instruction, the syscall buffer's call site
// (tracer/SyscallBuffer.h): the filter checks this first.
struct TrustedCallSite {
    uint64_t return_address = 0; // seccomp_data.instruction_pointer: just past the syscall instruction
    std::set<int> syscalls;      // none: no call site
};

class SeccompFilter {
public:
    // `trapped` holds x86_64 syscall numbers; SyscallInterceptor::kAllSyscalls traps every syscall.
    // `conditional` syscalls are trapped only when their argument matches, unless also in `trapped`.
    explicit SeccompFilter(const std::set<int>& trapped, const std::vector<ConditionalTrap>& conditional = {},
                           const TrustedCallSite& call_site = {});

    // Traps `syscalls` only when their first argument is one of the descriptor numbers `fds` (compared as
    // the kernel does, as an int). Made to be stacked on the guest's filter by an injected seccomp(2): the
    // kernel runs every filter of a thread and the strictest answer wins, so this one only adds traps.
    static SeccompFilter on_descriptors(const std::set<int>& syscalls, const std::vector<int>& fds);

    // Sends `syscalls`, and `conditional` ones whose argument matches (on its low 32 bits), to the tracer as
    // seccomp user notifications (a wait on a descriptor, ~5 us) instead of ptrace stops, unless their
    // sixth argument, which none of them uses, is kRetraceMarker. Stacked on a filter that traps the same
    // calls: a user notification beats a ptrace stop, and with the marker the syscall falls through to the
    // ptrace stop (see tracer/SyscallNotifications.h).
    static SeccompFilter notifying(const std::set<int>& syscalls,
                                   const std::vector<ConditionalTrap>& conditional = {},
                                   const TrustedCallSite& call_site = {});
    static constexpr uint64_t kRetraceMarker = 0x6865726d69740001; // "hermit" and 1

    const std::vector<sock_filter>& program() const { return program_; }
    // Installs the filter on the calling thread (needs PR_SET_NO_NEW_PRIVS or CAP_SYS_ADMIN). Async-signal
    // safe, for use between fork and exec. Returns false with errno set on failure.
    bool install() const;
    // Installs the filter with a listener: returns the descriptor that receives its notifications (close
    // on exec), or -1 with errno set. The guest waits killably once its notification was received, so a
    // signal cannot interrupt a syscall the tracer is answering.
    int install_with_listener() const;

private:
    SeccompFilter() = default;
    // Puts the check of `call_site` in front of the program (its jumps are relative, so they stay right).
    void let_through(const TrustedCallSite& call_site);

    std::vector<sock_filter> program_;
};

} // namespace hermit::tracer
