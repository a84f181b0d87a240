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

    const std::vector<sock_filter>& program() const { return program_; }
    // Installs the filter on the calling thread (needs PR_SET_NO_NEW_PRIVS or CAP_SYS_ADMIN). Async-signal
    // safe, for use between fork and exec. Returns false with errno set on failure.
    bool install() const;

private:
    std::vector<sock_filter> program_;
};

} // namespace hermit::tracer
