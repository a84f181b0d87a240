#include "Diversion.h"

#include "formats/Error.h"
#include "tracer/ProcessMemoryFile.h"
#include "tracer/Session.h"

#include <spdlog/spdlog.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <array>
#include <cstring>

namespace hermit::replay {

Diversion::Diversion(tracer::Task& task, tracer::Session& session)
    : task_(task), session_(session), program_break_(program_break()), image_(task) {
    siginfo_t info{};
    if (ptrace(PTRACE_GETSIGINFO, task_.host_tid(), nullptr, &info) == 0) {
        signal_ = info;
    }
    spdlog::debug("diversion of thread {}: {} mappings kept", task_.tid(), image_.regions().size());
}

uint64_t Diversion::program_break() {
    return static_cast<uint64_t>(call(SYS_brk, {0, 0, 0, 0, 0, 0}));
}

int64_t Diversion::call(int number, const std::array<uint64_t, 6>& args) {
    constexpr std::array<uint8_t, 3> kSyscallThenTrap = {0x0F, 0x05, 0xCC};
    const user_regs_struct saved = task_.registers();
    std::array<uint8_t, kSyscallThenTrap.size()> original{};
    tracer::ProcessMemoryFile text(task_.host_tid());
    if (!text.read(saved.rip, original.data(), original.size()) ||
        !text.write(saved.rip, kSyscallThenTrap.data(), kSyscallThenTrap.size())) {
        throw Error(ErrorCode::TracerInternal, "cannot place a syscall for a diversion");
    }
    task_.set_registers(tracer::syscall_registers(saved, number, args));
    const int status = session_.run_alone_untraced(task_, PTRACE_CONT);
    text.write(saved.rip, original.data(), original.size());
    if (!WIFSTOPPED(status) || WSTOPSIG(status) != SIGTRAP) {
        throw Error(ErrorCode::TracerInternal,
                    "the thread did not come back from a syscall of its diversion");
    }
    const int64_t result = static_cast<int64_t>(task_.registers().rax);
    task_.set_registers(saved);
    return result;
}

int Diversion::run(int request) {
    for (;;) {
        const int status = session_.run_alone_untraced(task_, request);
        const int event = WIFSTOPPED(status) ? status >> 16 : 0;
        if (event != PTRACE_EVENT_FORK && event != PTRACE_EVENT_VFORK && event != PTRACE_EVENT_CLONE) {
            return status;
        }
        spoiled_ = true; // the new task is gone; the call goes on
        request = PTRACE_CONT;
    }
}

bool Diversion::registers_restored() {
    // What gdb saves before a call and writes back after it; of eflags, the status flags (the kernel's own
    // bits, such as the resume flag, are not gdb's to restore).
    constexpr uint64_t kStatusFlags = 0xcd5; // CF PF AF ZF SF DF OF
    const user_regs_struct& now = task_.registers();
    const user_regs_struct& then = image_.registers();
    return now.rax == then.rax && now.rbx == then.rbx && now.rcx == then.rcx && now.rdx == then.rdx &&
           now.rsi == then.rsi && now.rdi == then.rdi && now.rbp == then.rbp && now.rsp == then.rsp &&
           now.r8 == then.r8 && now.r9 == then.r9 && now.r10 == then.r10 && now.r11 == then.r11 &&
           now.r12 == then.r12 && now.r13 == then.r13 && now.r14 == then.r14 && now.r15 == then.r15 &&
           now.rip == then.rip && now.fs_base == then.fs_base &&
           (now.eflags & kStatusFlags) == (then.eflags & kStatusFlags);
}

void Diversion::undo() {
    if (program_break() != program_break_) {
        call(SYS_brk, {program_break_, 0, 0, 0, 0, 0});
    }
    // Mappings the diversion made (malloc's, say): the replay's later mmaps must find the same gaps.
    for (const ProcessImage::Region& now : ProcessImage::mappings(task_.host_pid())) {
        uint64_t start = now.start;
        for (const ProcessImage::Region& kept : image_.regions()) {
            if (kept.end <= start || kept.start >= now.end) {
                continue;
            }
            if (kept.start > start) {
                call(SYS_munmap, {start, kept.start - start, 0, 0, 0, 0});
            }
            start = std::max(start, kept.end);
        }
        if (start < now.end) {
            call(SYS_munmap, {start, now.end - start, 0, 0, 0, 0});
        }
    }
    image_.restore(task_);
    if (signal_) {
        ptrace(PTRACE_SETSIGINFO, task_.host_tid(), nullptr, &*signal_);
    }
}

} // namespace hermit::replay
