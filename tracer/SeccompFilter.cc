#include "SeccompFilter.h"

#include "SyscallInterceptor.h"
#include "formats/Error.h"

#include <linux/audit.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <map>

namespace hermit::tracer {

namespace {

// The offset of a jump, appended next, to the instruction at index `target`: it counts from the
// instruction after the jump.
uint8_t offset_to(const std::vector<sock_filter>& program, uint8_t target) {
    return static_cast<uint8_t>(target - program.size() - 1);
}

// The start of the hand-written filters, branch_length(syscalls.size() + elsewhere.size()) instructions: a
// syscall of another architecture or in neither list jumps to the instruction at index `allow`, one of
// `syscalls` to `matched`, one of `elsewhere` to its own index.
constexpr size_t branch_length(size_t syscall_count) {
    return 4 + syscall_count;
}
void branch_on_syscalls(std::vector<sock_filter>& program, const std::set<int>& syscalls, uint8_t matched,
                        uint8_t allow, const std::vector<std::pair<int, uint8_t>>& elsewhere = {}) {
    program.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)));
    program.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, offset_to(program, allow)));
    program.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)));
    for (int number : syscalls) {
        program.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<uint32_t>(number),
                                   offset_to(program, matched), 0));
    }
    for (const auto& [number, target] : elsewhere) {
        program.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<uint32_t>(number),
                                   offset_to(program, target), 0));
    }
    program.push_back(BPF_STMT(BPF_JMP | BPF_JA | BPF_K, offset_to(program, allow)));
}

} // namespace

SeccompFilter::SeccompFilter(const std::set<int>& trapped, const std::vector<ConditionalTrap>& conditional,
                             const TrustedCallSite& call_site) {
    // Written here as the other filters are: libseccomp took 3.4 ms to build a recording's, a seventh of a
    // short recorded run. Every jump goes at most past one block, so no offset outgrows its 8 bits.
    // Another architecture, and x32 syscall numbers on this one, kill the thread, as libseccomp's default.
    constexpr uint32_t kX32SyscallBit = 0x40000000;
    const sock_filter trace = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE);
    const sock_filter kill = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_THREAD);
    program_.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)));
    program_.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0));
    program_.push_back(kill);
    program_.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)));
    program_.push_back(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, kX32SyscallBit, 0, 1));
    program_.push_back(kill);
    if (trapped.contains(SyscallInterceptor::kAllSyscalls)) {
        program_.push_back(trace);
        let_through(call_site);
        return;
    }
    for (int number : trapped) {
        program_.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<uint32_t>(number), 0, 1));
        program_.push_back(trace);
    }
    // Each conditionally trapped number: its checks of one argument's low half (all the kernel reads of
    // the flags and commands they are on), then the number loaded again for the numbers after it.
    std::map<int, std::vector<ConditionalTrap>> checks;
    for (const ConditionalTrap& trap : conditional) {
        if (trap.argument >= 6 || (trap.mask >> 32) != 0 || (trap.value >> 32) != 0) {
            throw Error(ErrorCode::TracerInternal, "a trap's condition must be on the low 32 bits");
        }
        if (!trapped.contains(trap.number)) {
            checks[trap.number].push_back(trap);
        }
    }
    for (const auto& [number, traps] : checks) {
        constexpr size_t kCheckLength = 4;
        program_.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<uint32_t>(number), 0,
                                    static_cast<uint8_t>(kCheckLength * traps.size() + 1)));
        for (const ConditionalTrap& trap : traps) {
            program_.push_back(BPF_STMT(
                BPF_LD | BPF_W | BPF_ABS,
                static_cast<uint32_t>(offsetof(seccomp_data, args) + trap.argument * sizeof(uint64_t))));
            program_.push_back(BPF_STMT(BPF_ALU | BPF_AND | BPF_K, static_cast<uint32_t>(trap.mask)));
            program_.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<uint32_t>(trap.value), 0, 1));
            program_.push_back(trace);
        }
        program_.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)));
    }
    program_.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    let_through(call_site);
}

void SeccompFilter::let_through(const TrustedCallSite& call_site) {
    if (call_site.syscalls.empty()) {
        return;
    }
    // Loads and compares: arch, the number, and only for the call site's numbers the two halves of the
    // instruction pointer; a match jumps to ALLOW, anything else to the program that follows. The number
    // comes first so that every other syscall's way through reads no more than arch and number: the
    // kernel then proves a syscall that every filter allows always allowed and stops running the filters
    // for it (the seccomp action cache), which a check of the instruction pointer first ruled out for all.
    std::vector<sock_filter> check;
    const size_t count = call_site.syscalls.size();
    const size_t length = 9 + count;
    const size_t pointer_check = 4 + count;
    auto offset_from_next = [&](size_t target) { return static_cast<uint8_t>(target - check.size() - 1); };
    check.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)));
    check.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, offset_from_next(length)));
    check.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)));
    for (int number : call_site.syscalls) {
        check.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<uint32_t>(number),
                                 offset_from_next(pointer_check), 0));
    }
    check.push_back(BPF_STMT(BPF_JMP | BPF_JA | BPF_K, offset_from_next(length)));
    check.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, instruction_pointer)));
    check.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<uint32_t>(call_site.return_address), 0,
                             offset_from_next(length)));
    check.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, instruction_pointer) + 4));
    check.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<uint32_t>(call_site.return_address >> 32),
                             0, offset_from_next(length)));
    check.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    program_.insert(program_.begin(), check.begin(), check.end());
}

SeccompFilter SeccompFilter::on_descriptors(const std::set<int>& syscalls, const std::vector<int>& fds) {
    // Jump offsets are 8 bits: a filter holds at most a few hundred syscalls and descriptors.
    if (syscalls.size() + fds.size() > 200) {
        throw Error(ErrorCode::TracerInternal, "too many syscalls or descriptors for one filter");
    }
    const auto fd_count = static_cast<uint8_t>(fds.size());
    // After the syscall branch: the load of args[0], the descriptor checks, a jump to ALLOW, TRACE, ALLOW.
    const auto matched = static_cast<uint8_t>(branch_length(syscalls.size()));
    const uint8_t trace = matched + 1 + fd_count + 1;
    const uint8_t allow = trace + 1;
    SeccompFilter filter;
    std::vector<sock_filter>& program = filter.program_;
    branch_on_syscalls(program, syscalls, matched, allow);
    // The low half of args[0]: the kernel reads a descriptor argument as an int.
    program.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[0])));
    for (int fd : fds) {
        program.push_back(
            BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<uint32_t>(fd), offset_to(program, trace), 0));
    }
    program.push_back(BPF_STMT(BPF_JMP | BPF_JA | BPF_K, offset_to(program, allow)));
    program.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE));
    program.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    return filter;
}

SeccompFilter SeccompFilter::notifying(const std::set<int>& syscalls,
                                       const std::vector<ConditionalTrap>& conditional,
                                       const TrustedCallSite& call_site) {
    std::vector<ConditionalTrap> checks;
    for (const ConditionalTrap& trap : conditional) {
        if (syscalls.contains(trap.number)) {
            continue;
        }
        // Flags and commands: the low half of the argument is all the kernel reads.
        if (trap.argument >= 6 || (trap.mask >> 32) != 0 || (trap.value >> 32) != 0) {
            throw Error(ErrorCode::TracerInternal, "a notified condition must be on the low 32 bits");
        }
        checks.push_back(trap);
    }
    if (syscalls.size() + 4 * checks.size() > 200) {
        throw Error(ErrorCode::TracerInternal, "too many syscalls for one filter");
    }
    // After the syscall branch: three instructions per condition (load the argument, mask it, compare),
    // then the load and check of each half of args[5], USER_NOTIF, ALLOW.
    std::vector<std::pair<int, uint8_t>> condition_starts;
    const size_t conditions_start = branch_length(syscalls.size() + checks.size());
    for (size_t index = 0; index < checks.size(); ++index) {
        condition_starts.emplace_back(checks[index].number,
                                      static_cast<uint8_t>(conditions_start + 3 * index));
    }
    const auto marker_check = static_cast<uint8_t>(conditions_start + 3 * checks.size());
    const uint8_t notify = marker_check + 4;
    const uint8_t allow = notify + 1;
    SeccompFilter filter;
    std::vector<sock_filter>& program = filter.program_;
    branch_on_syscalls(program, syscalls, marker_check, allow, condition_starts);
    for (const ConditionalTrap& trap : checks) {
        const auto argument =
            static_cast<uint32_t>(offsetof(seccomp_data, args) + trap.argument * sizeof(uint64_t));
        program.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, argument));
        program.push_back(BPF_STMT(BPF_ALU | BPF_AND | BPF_K, static_cast<uint32_t>(trap.mask)));
        program.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<uint32_t>(trap.value),
                                   offset_to(program, marker_check), offset_to(program, allow)));
    }
    program.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[5])));
    program.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<uint32_t>(kRetraceMarker), 0,
                               offset_to(program, notify)));
    program.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[5]) + 4));
    program.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<uint32_t>(kRetraceMarker >> 32),
                               offset_to(program, allow), 0));
    program.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF));
    program.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    filter.let_through(call_site);
    return filter;
}

bool SeccompFilter::install() const {
    sock_fprog program{static_cast<unsigned short>(program_.size()),
                       const_cast<sock_filter*>(program_.data())};
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) == 0;
}

int SeccompFilter::install_with_listener() const {
    sock_fprog program{static_cast<unsigned short>(program_.size()),
                       const_cast<sock_filter*>(program_.data())};
    return static_cast<int>(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                                    SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV,
                                    &program));
}

} // namespace hermit::tracer
