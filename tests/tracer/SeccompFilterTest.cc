// The filter is installed in a real child without a tracer: a trapped syscall then fails with ENOSYS
// (SECCOMP_RET_TRACE with nobody attached), an allowed one runs normally.
#include "tracer/SeccompFilter.h"
#include "tracer/SyscallInterceptor.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstddef>
#include <cstring>
#include <optional>
#include <vector>

namespace hermit::tracer {
namespace {

// Exit code of a child that installs `filter` and then runs `body`.
int exit_code_under(const SeccompFilter& filter, int (*body)()) {
    pid_t child = fork();
    if (child == 0) {
        prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
        if (!filter.install()) {
            _exit(99);
        }
        _exit(body());
    }
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool trapped(long result) {
    return result == -1 && errno == ENOSYS;
}

// Exit code of a child that installs `filter` and reports what getppid and getpid did.
int child_outcome(const SeccompFilter& filter) {
    return exit_code_under(filter, [] {
        int code = 0;
        if (trapped(syscall(SYS_getppid))) {
            code |= 1;
        }
        if (syscall(SYS_getpid) > 0) {
            code |= 2;
        }
        return code;
    });
}

TEST(SeccompFilter, TrapsOnlyTheListedSyscalls) {
    SeccompFilter filter({SYS_getppid});
    EXPECT_FALSE(filter.program().empty());
    EXPECT_EQ(child_outcome(filter), 1 | 2);
}

TEST(SeccompFilter, EmptySetAllowsEverything) {
    SeccompFilter filter(std::set<int>{});
    EXPECT_EQ(child_outcome(filter), 2);
}

TEST(SeccompFilter, DescriptorFilterTrapsOnlyTheListedDescriptors) {
    // read and lseek on descriptors 5 and 7 are trapped; on 6, and other syscalls on 5, run (EBADF).
    const SeccompFilter filter = SeccompFilter::on_descriptors({SYS_read, SYS_lseek}, {5, 7});
    EXPECT_EQ(exit_code_under(filter,
                              [] {
                                  char byte = 0;
                                  int code = 0;
                                  code |= trapped(syscall(SYS_read, 5, &byte, 1)) ? 1 : 0;
                                  code |= trapped(syscall(SYS_lseek, 7, 0, SEEK_SET)) ? 2 : 0;
                                  code |= syscall(SYS_read, 6, &byte, 1) == -1 && errno == EBADF ? 4 : 0;
                                  code |= syscall(SYS_fstat, 5, nullptr) == -1 && errno == EBADF ? 8 : 0;
                                  // The kernel reads a descriptor as an int: high bits do not hide it.
                                  code |= trapped(syscall(SYS_read, (1L << 32) | 5, &byte, 1)) ? 16 : 0;
                                  return code;
                              }),
              1 | 2 | 4 | 8 | 16);
}

TEST(SeccompFilter, ProgramGrowsWithTheTrappedSet) {
    SeccompFilter small({SYS_getppid});
    SeccompFilter large({SYS_getppid, SYS_futex, SYS_wait4, SYS_kill, SYS_poll});
    EXPECT_GT(large.program().size(), small.program().size());
}

// getppid ignores its arguments, but the filter sees the registers: trapped only when arg0 & 3 == 1.
TEST(SeccompFilter, TrapsConditionallyOnAnArgument) {
    SeccompFilter filter({}, {{SYS_getppid, 0, 3, 1}});
    EXPECT_EQ(exit_code_under(filter,
                              [] {
                                  return (trapped(syscall(SYS_getppid, 5)) ? 1 : 0) |
                                         (trapped(syscall(SYS_getppid, 6)) ? 2 : 0);
                              }),
              1);
}

// Two conditions on one syscall (DescriptorTraps traps fcntl's F_DUPFD and F_DUPFD_CLOEXEC): either traps
// it, and a syscall after it in number order is still told apart.
TEST(SeccompFilter, TrapsOnEitherOfTwoConditionsOfOneSyscall) {
    SeccompFilter filter({SYS_getuid}, {{SYS_getppid, 0, 3, 1}, {SYS_getppid, 0, 3, 2}});
    EXPECT_EQ(exit_code_under(filter,
                              [] {
                                  return (trapped(syscall(SYS_getppid, 5)) ? 1 : 0) |
                                         (trapped(syscall(SYS_getppid, 6)) ? 2 : 0) |
                                         (syscall(SYS_getppid, 7) > 0 ? 4 : 0) |
                                         (trapped(syscall(SYS_getuid)) ? 8 : 0) |
                                         (syscall(SYS_getgid) >= 0 ? 16 : 0);
                              }),
              1 | 2 | 4 | 8 | 16);
}

// A syscall of the x32 ABI (its number with bit 30 set) is one hermit does not trace: the thread is killed,
// as by a syscall of another architecture.
// x32 numbers, syscall(-1) and a 64-bit program's int 0x80 fail with ENOSYS and the program goes on.
TEST(SeccompFilter, AnswersOtherAbisWithEnosys) {
    pid_t child = fork();
    if (child == 0) {
        prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
        if (!SeccompFilter(std::set<int>{SYS_getppid}).install()) {
            _exit(99);
        }
        const bool x32 = syscall(0x40000000 | SYS_getpid) == -1 && errno == ENOSYS;
        const bool minus_one = syscall(-1) == -1 && errno == ENOSYS;
        long i386_getpid = 20;
        asm volatile("int $0x80" : "+a"(i386_getpid) : : "memory");
        _exit(x32 && minus_one && i386_getpid == -ENOSYS ? 0 : 1);
    }
    int status = 0;
    waitpid(child, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

TEST(SeccompFilter, AnUnconditionalTrapWinsOverAConditionalOne) {
    SeccompFilter filter({SYS_getppid}, {{SYS_getppid, 0, 3, 1}});
    EXPECT_EQ(exit_code_under(filter, [] { return trapped(syscall(SYS_getppid, 6)) ? 1 : 0; }), 1);
}

// mov rax, rdi; mov rdi, rsi; syscall; ret: the syscall `number(argument)`, its raw result.
using CallSite = long (*)(long number, long argument);
constexpr unsigned char kCallSiteCode[] = {0x48, 0x89, 0xf8, 0x48, 0x89, 0xf7, 0x0f, 0x05, 0xc3};
constexpr uint64_t kPastSyscallInstruction = 8;
CallSite call_site = nullptr; // mapped before the child forks, which inherits it

// getppid and getuid are trapped, getppid let through from the call site: from there it runs, from
// anywhere else it is trapped, and getuid is trapped from there too.
int call_site_outcome(const SeccompFilter& filter) {
    return exit_code_under(filter, [] {
        int code = 0;
        code |= call_site(SYS_getppid, 0) > 0 ? 1 : 0;
        code |= trapped(syscall(SYS_getppid)) ? 2 : 0;
        code |= call_site(SYS_getuid, 0) == -ENOSYS ? 4 : 0;
        return code;
    });
}

TEST(SeccompFilter, LetsTheTrustedCallSiteThroughForItsSyscallsOnly) {
    void* page = mmap(nullptr, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(page, MAP_FAILED);
    std::memcpy(page, kCallSiteCode, sizeof kCallSiteCode);
    call_site = reinterpret_cast<CallSite>(page);
    const TrustedCallSite trusted{reinterpret_cast<uint64_t>(page) + kPastSyscallInstruction, {SYS_getppid}};
    EXPECT_EQ(call_site_outcome(SeccompFilter({SYS_getppid, SYS_getuid}, {}, trusted)), 1 | 2 | 4);
    // Without a listener a user notification fails with ENOSYS too.
    EXPECT_EQ(call_site_outcome(SeccompFilter::notifying({SYS_getppid, SYS_getuid}, {}, trusted)), 1 | 2 | 4);
    EXPECT_EQ(call_site_outcome(SeccompFilter({SYS_getppid, SYS_getuid})), 2 | 4);
    munmap(page, 4096);
}

// What a filter program did with one syscall, run as the kernel runs it.
struct FilterRun {
    std::optional<uint32_t> action;      // nullopt: an instruction this interpreter does not know
    size_t steps = 0;                    // instructions run
    bool read_beyond_the_number = false; // read more than arch and number
};

FilterRun run_filter(const std::vector<sock_filter>& program, const seccomp_data& data) {
    FilterRun run;
    uint32_t accumulator = 0;
    for (size_t index = 0; index < program.size(); index++) {
        const sock_filter& instruction = program[index];
        run.steps++;
        switch (instruction.code) {
        case BPF_LD | BPF_W | BPF_ABS:
            if (instruction.k + sizeof accumulator > sizeof data) {
                return run;
            }
            std::memcpy(&accumulator, reinterpret_cast<const uint8_t*>(&data) + instruction.k,
                        sizeof accumulator);
            run.read_beyond_the_number |=
                instruction.k != offsetof(seccomp_data, nr) && instruction.k != offsetof(seccomp_data, arch);
            break;
        case BPF_ALU | BPF_AND | BPF_K:
            accumulator &= instruction.k;
            break;
        case BPF_JMP | BPF_JA | BPF_K:
            index += instruction.k;
            break;
        case BPF_JMP | BPF_JEQ | BPF_K:
            index += accumulator == instruction.k ? instruction.jt : instruction.jf;
            break;
        case BPF_JMP | BPF_JGE | BPF_K:
            index += accumulator >= instruction.k ? instruction.jt : instruction.jf;
            break;
        case BPF_JMP | BPF_JGT | BPF_K:
            index += accumulator > instruction.k ? instruction.jt : instruction.jf;
            break;
        case BPF_JMP | BPF_JSET | BPF_K:
            index += (accumulator & instruction.k) != 0 ? instruction.jt : instruction.jf;
            break;
        case BPF_RET | BPF_K:
            run.action = instruction.k;
            return run;
        default:
            return run;
        }
    }
    return run;
}

seccomp_data syscall_data(int number, uint64_t first_argument = 0) {
    seccomp_data data{};
    data.nr = number;
    data.arch = AUDIT_ARCH_X86_64;
    data.args[0] = first_argument;
    return data;
}

// As the kernel's seccomp action cache runs a filter when it proves a syscall always allowed: knowing only
// arch and number. nullopt when the way reads anything else.
std::optional<uint32_t> action_knowing_only_the_number(const std::vector<sock_filter>& program, int number) {
    const FilterRun run = run_filter(program, syscall_data(number));
    return run.read_beyond_the_number ? std::nullopt : run.action;
}

// A recording's filter traps about 150 numbers; a syscall the action cache cannot answer (a conditional
// trap's number) must not walk them all. Every number up to 450 gets its own answer, and each condition
// of a number counts (the notifying filter once looked at the first only).
TEST(SeccompFilter, FindsTheNumberInFewStepsAmongManyTrapped) {
    std::set<int> trapped;
    for (int number = 0; number < 450; number += 3) {
        trapped.insert(number);
    }
    const std::vector<ConditionalTrap> conditional = {
        {SYS_write, 0, 0xffffffff, 2}, {SYS_write, 0, 0xffffffff, 5}, {SYS_openat, 2, O_ACCMODE, O_WRONLY}};
    for (const SeccompFilter& filter :
         {SeccompFilter(trapped, conditional), SeccompFilter::notifying(trapped, conditional)}) {
        size_t most_steps = 0;
        for (int number = 0; number < 450; number++) {
            const FilterRun run = run_filter(filter.program(), syscall_data(number, 3));
            const bool expected_trapped = trapped.contains(number);
            ASSERT_TRUE(run.action) << number;
            EXPECT_EQ(*run.action != SECCOMP_RET_ALLOW, expected_trapped) << number;
            most_steps = std::max(most_steps, run.steps);
        }
        EXPECT_LE(most_steps, 40u) << "a linear search runs about " << trapped.size();
        EXPECT_NE(run_filter(filter.program(), syscall_data(SYS_write, 5)).action, SECCOMP_RET_ALLOW);
        EXPECT_NE(run_filter(filter.program(), syscall_data(SYS_write, 2)).action, SECCOMP_RET_ALLOW);
        EXPECT_EQ(run_filter(filter.program(), syscall_data(SYS_write, 4)).action, SECCOMP_RET_ALLOW);
    }
}

TEST(SeccompFilter, AnUntrappedSyscallIsAllowedKnowingOnlyItsNumber) {
    // Else the kernel runs every filter at every syscall of the guest, the untrapped ones included.
    const TrustedCallSite trusted{0x7f0000001234, {SYS_getppid}};
    const std::vector<ConditionalTrap> conditional = {{SYS_openat, 2, O_TMPFILE, 0}};
    for (const SeccompFilter& filter : {SeccompFilter({SYS_getuid}, conditional, trusted),
                                        SeccompFilter::notifying({SYS_getuid}, conditional, trusted)}) {
        EXPECT_EQ(action_knowing_only_the_number(filter.program(), SYS_getpid), SECCOMP_RET_ALLOW);
        EXPECT_NE(action_knowing_only_the_number(filter.program(), SYS_getuid), SECCOMP_RET_ALLOW);
        // The call site's syscalls and the conditional ones depend on more than their number.
        EXPECT_EQ(action_knowing_only_the_number(filter.program(), SYS_getppid), std::nullopt);
        EXPECT_EQ(action_knowing_only_the_number(filter.program(), SYS_openat), std::nullopt);
    }
}

} // namespace
} // namespace hermit::tracer
