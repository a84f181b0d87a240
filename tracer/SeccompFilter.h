#pragma once
// SeccompFilter: the BPF program that decides which guest syscalls stop at the tracer. Syscalls in the
// trapped set return SECCOMP_RET_TRACE (a ptrace stop, ~120 us); every other syscall is allowed and runs
// at native speed. The program is built in the tracer, before fork, so the child only has to install it.

#include "SyscallInterceptor.h"

#include <linux/filter.h>

#include <set>
#include <vector>

namespace hermit::tracer {

class SeccompFilter {
public:
    // `trapped` holds x86_64 syscall numbers; SyscallInterceptor::kAllSyscalls traps every syscall.
    // `conditional` syscalls are trapped only when their argument matches, unless also in `trapped`.
    explicit SeccompFilter(const std::set<int>& trapped,
                           const std::vector<ConditionalTrap>& conditional = {});

    // Traps `syscalls` only when their first argument is one of the descriptor numbers `fds` (compared as
    // the kernel does, as an int). Made to be stacked on the guest's filter by an injected seccomp(2): the
    // kernel runs every filter of a thread and the strictest answer wins, so this one only adds traps.
    static SeccompFilter on_descriptors(const std::set<int>& syscalls, const std::vector<int>& fds);

    const std::vector<sock_filter>& program() const { return program_; }
    // Installs the filter on the calling thread (needs PR_SET_NO_NEW_PRIVS or CAP_SYS_ADMIN). Async-signal
    // safe, for use between fork and exec. Returns false with errno set on failure.
    bool install() const;

private:
    SeccompFilter() = default;

    std::vector<sock_filter> program_;
};

} // namespace hermit::tracer
