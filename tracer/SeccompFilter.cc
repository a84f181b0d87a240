#include "SeccompFilter.h"

#include "SyscallInterceptor.h"
#include "formats/Error.h"

#include <linux/audit.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <map>
#include <span>
#include <utility>
#include <vector>

namespace hermit::tracer {

namespace {

// Builds a program whose jumps may go anywhere ahead: a jump to a label is a JA, whose offset has 32 bits
// (a conditional jump's have 8) and is filled in by finish(). A conditional jump to a label is the
// comparison, true falling through to the JA and false skipping it: one instruction run when it fails.
class ProgramWriter {
public:
    using Label = size_t;

    explicit ProgramWriter(std::vector<sock_filter>& program) : program_(program) {}

    Label new_label() {
        targets_.push_back(SIZE_MAX);
        return targets_.size() - 1;
    }
    // The next instruction written is the label's.
    void place(Label label) { targets_[label] = program_.size(); }
    void add(sock_filter instruction) { program_.push_back(instruction); }
    void load(uint32_t offset) { add(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offset)); }
    // Loads the number of an x86_64 syscall; one of another architecture jumps to `other_architecture`.
    void load_x86_64_number(Label other_architecture) {
        load(offsetof(seccomp_data, arch));
        jump_unless(BPF_JEQ, AUDIT_ARCH_X86_64, other_architecture);
        load(offsetof(seccomp_data, nr));
    }
    void return_at(Label label, uint32_t action) {
        place(label);
        add(BPF_STMT(BPF_RET | BPF_K, action));
    }
    void jump(Label label) {
        jumps_.emplace_back(program_.size(), label);
        add(BPF_STMT(BPF_JMP | BPF_JA | BPF_K, 0));
    }
    // `comparison` is BPF_JEQ or BPF_JGE, of the accumulator with `value`.
    void jump_if(uint16_t comparison, uint32_t value, Label label) {
        add(BPF_JUMP(BPF_JMP | comparison | BPF_K, value, 0, 1));
        jump(label);
    }
    void jump_unless(uint16_t comparison, uint32_t value, Label label) {
        add(BPF_JUMP(BPF_JMP | comparison | BPF_K, value, 1, 0));
        jump(label);
    }
    void finish() {
        for (const auto& [at, label] : jumps_) {
            program_[at].k = static_cast<uint32_t>(targets_[label] - at - 1);
        }
    }

private:
    std::vector<sock_filter>& program_;
    std::vector<size_t> targets_;
    std::vector<std::pair<size_t, Label>> jumps_;
};

// Jumps to the label of the syscall number in the accumulator among `numbers` (sorted by number), or to
// `otherwise`. A binary search: a syscall that the kernel's action cache cannot answer (the numbers of
// conditional traps: open, and read and write while the guest's stdio is a terminal or a pipe) runs a
// few instructions of the filter, not one per trapped number (a recording traps about 150: write() to a
// regular file took 0.25 us more, 16% of a recorded loop of them).
void search_numbers(ProgramWriter& writer, std::span<const std::pair<int, ProgramWriter::Label>> numbers,
                    ProgramWriter::Label otherwise) {
    constexpr size_t kCompareInTurn = 4;
    if (numbers.size() <= kCompareInTurn) {
        for (const auto& [number, label] : numbers) {
            writer.jump_if(BPF_JEQ, static_cast<uint32_t>(number), label);
        }
        writer.jump(otherwise);
        return;
    }
    const size_t middle = numbers.size() / 2;
    const ProgramWriter::Label upper = writer.new_label();
    writer.jump_if(BPF_JGE, static_cast<uint32_t>(numbers[middle].first), upper);
    search_numbers(writer, numbers.first(middle), otherwise);
    writer.place(upper);
    search_numbers(writer, numbers.subspan(middle), otherwise);
}

// The conditions of each conditionally trapped number, on the low half of one argument each (all the
// kernel reads of the flags, commands and descriptors they are on). `except` numbers are left out.
std::map<int, std::vector<ConditionalTrap>>
conditions_by_number(const std::vector<ConditionalTrap>& conditional, const std::set<int>& except) {
    std::map<int, std::vector<ConditionalTrap>> checks;
    for (const ConditionalTrap& trap : conditional) {
        if (trap.argument >= 6 || (trap.mask >> 32) != 0 || (trap.value >> 32) != 0) {
            throw Error(ErrorCode::TracerInternal, "a trap's condition must be on the low 32 bits");
        }
        if (!except.contains(trap.number)) {
            checks[trap.number].push_back(trap);
        }
    }
    return checks;
}

// Writes the search of `syscalls` (to `matched`) and of the numbers of `checks` (each to its conditions,
// then to `matched` when one holds and to `otherwise` when none does), then the conditions. The
// accumulator holds the syscall number.
void dispatch(ProgramWriter& writer, const std::set<int>& syscalls,
              const std::map<int, std::vector<ConditionalTrap>>& checks, ProgramWriter::Label matched,
              ProgramWriter::Label otherwise) {
    std::vector<std::pair<int, ProgramWriter::Label>> numbers;
    for (int number : syscalls) {
        numbers.emplace_back(number, matched);
    }
    std::vector<ProgramWriter::Label> check_labels;
    for (const auto& [number, traps] : checks) {
        check_labels.push_back(writer.new_label());
        numbers.emplace_back(number, check_labels.back());
    }
    std::sort(numbers.begin(), numbers.end());
    search_numbers(writer, numbers, otherwise);
    auto label = check_labels.begin();
    for (const auto& [number, traps] : checks) {
        writer.place(*label++);
        for (const ConditionalTrap& trap : traps) {
            writer.load(
                static_cast<uint32_t>(offsetof(seccomp_data, args) + trap.argument * sizeof(uint64_t)));
            if (trap.mask != 0xffffffff) {
                writer.add(BPF_STMT(BPF_ALU | BPF_AND | BPF_K, static_cast<uint32_t>(trap.mask)));
            }
            writer.jump_if(BPF_JEQ, static_cast<uint32_t>(trap.value), matched);
        }
        writer.jump(otherwise);
    }
}

} // namespace

SeccompFilter::SeccompFilter(const std::set<int>& trapped, const std::vector<ConditionalTrap>& conditional,
                             const TrustedCallSite& call_site) {
    // Written here as the other filters are: libseccomp took 3.4 ms to build a recording's, a seventh of a
    // short recorded run. Another architecture's call (int 0x80) and numbers from the x32 bit up (x32 calls,
    // syscall(-1)) fail with ENOSYS, as on a kernel without those ABIs: programs probe for syscalls this
    // way, and the numbers below are x86_64's only.
    constexpr uint32_t kX32SyscallBit = 0x40000000;
    const sock_filter unknown = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS);
    ProgramWriter writer(program_);
    writer.load(offsetof(seccomp_data, arch));
    writer.add(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0));
    writer.add(unknown);
    writer.load(offsetof(seccomp_data, nr));
    writer.add(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, kX32SyscallBit, 0, 1));
    writer.add(unknown);
    if (trapped.contains(SyscallInterceptor::kAllSyscalls)) {
        writer.add(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE));
    } else {
        const ProgramWriter::Label trace = writer.new_label();
        const ProgramWriter::Label allow = writer.new_label();
        dispatch(writer, trapped, conditions_by_number(conditional, trapped), trace, allow);
        writer.return_at(trace, SECCOMP_RET_TRACE);
        writer.return_at(allow, SECCOMP_RET_ALLOW);
        writer.finish();
    }
    let_through(call_site);
}

void SeccompFilter::let_through(const TrustedCallSite& call_site) {
    if (call_site.syscalls.empty()) {
        return;
    }
    // Loads and compares: arch, the number, and only for the call site's numbers the two halves of the
    // instruction pointer; a match allows, anything else goes on to the program that follows. The number
    // comes first so that every other syscall's way through reads no more than arch and number: the
    // kernel then proves a syscall that every filter allows always allowed and stops running the filters
    // for it (the seccomp action cache), which a check of the instruction pointer first ruled out for all.
    std::vector<sock_filter> check;
    ProgramWriter writer(check);
    const ProgramWriter::Label pointer_check = writer.new_label();
    const ProgramWriter::Label program = writer.new_label();
    writer.load_x86_64_number(program);
    dispatch(writer, call_site.syscalls, {}, pointer_check, program);
    writer.place(pointer_check);
    writer.load(offsetof(seccomp_data, instruction_pointer));
    writer.jump_unless(BPF_JEQ, static_cast<uint32_t>(call_site.return_address), program);
    writer.load(offsetof(seccomp_data, instruction_pointer) + 4);
    writer.jump_unless(BPF_JEQ, static_cast<uint32_t>(call_site.return_address >> 32), program);
    writer.add(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    writer.place(program);
    writer.finish();
    program_.insert(program_.begin(), check.begin(), check.end());
}

SeccompFilter SeccompFilter::on_descriptors(const std::set<int>& syscalls, const std::vector<int>& fds) {
    // The low half of args[0]: the kernel reads a descriptor argument as an int.
    std::vector<ConditionalTrap> conditions;
    for (int number : syscalls) {
        for (int fd : fds) {
            conditions.push_back({number, 0, 0xffffffff, static_cast<uint32_t>(fd)});
        }
    }
    SeccompFilter filter;
    ProgramWriter writer(filter.program_);
    const ProgramWriter::Label trace = writer.new_label();
    const ProgramWriter::Label allow = writer.new_label();
    writer.load_x86_64_number(allow);
    dispatch(writer, {}, conditions_by_number(conditions, {}), trace, allow);
    writer.return_at(trace, SECCOMP_RET_TRACE);
    writer.return_at(allow, SECCOMP_RET_ALLOW);
    writer.finish();
    return filter;
}

SeccompFilter SeccompFilter::notifying(const std::set<int>& syscalls,
                                       const std::vector<ConditionalTrap>& conditional,
                                       const TrustedCallSite& call_site) {
    SeccompFilter filter;
    ProgramWriter writer(filter.program_);
    const ProgramWriter::Label marker_check = writer.new_label();
    const ProgramWriter::Label notify = writer.new_label();
    const ProgramWriter::Label allow = writer.new_label();
    // Another architecture's syscalls are the ptrace filter's to kill.
    writer.load_x86_64_number(allow);
    dispatch(writer, syscalls, conditions_by_number(conditional, syscalls), marker_check, allow);
    writer.place(marker_check);
    writer.load(offsetof(seccomp_data, args[5]));
    writer.jump_unless(BPF_JEQ, static_cast<uint32_t>(kRetraceMarker), notify);
    writer.load(offsetof(seccomp_data, args[5]) + 4);
    writer.jump_if(BPF_JEQ, static_cast<uint32_t>(kRetraceMarker >> 32), allow);
    writer.return_at(notify, SECCOMP_RET_USER_NOTIF);
    writer.return_at(allow, SECCOMP_RET_ALLOW);
    writer.finish();
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
