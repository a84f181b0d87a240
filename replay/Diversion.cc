#include "Diversion.h"

#include "formats/Error.h"
#include "tracer/ProcessMemoryFile.h"
#include "tracer/Session.h"

#include <elf.h>
#include <spdlog/spdlog.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace hermit::replay {

namespace {

// The largest x86 extended state the kernel hands out (AVX-512 and AMX tile data fit in 12 KiB).
constexpr size_t kExtendedStateBytes = 12288;

std::vector<uint8_t> read_extended_state(pid_t tid) {
    std::vector<uint8_t> state(kExtendedStateBytes);
    iovec buffer{state.data(), state.size()};
    if (ptrace(PTRACE_GETREGSET, tid, NT_X86_XSTATE, &buffer) != 0) {
        throw Error(ErrorCode::TracerInternal,
                    std::string("cannot save the registers for a diversion: ") + std::strerror(errno));
    }
    state.resize(buffer.iov_len);
    return state;
}

} // namespace

Diversion::Diversion(tracer::Task& task, tracer::Session& session) : task_(task), session_(session) {
    registers_ = task_.registers();
    extended_state_ = read_extended_state(task_.host_tid());
    siginfo_t info{};
    if (ptrace(PTRACE_GETSIGINFO, task_.host_tid(), nullptr, &info) == 0) {
        signal_ = info;
    }
    program_break_ = static_cast<uint64_t>(call(SYS_brk, {0, 0, 0, 0, 0, 0}));
    regions_ = mappings(task_.host_pid());
    tracer::ProcessMemoryFile memory(task_.host_tid());
    for (Region& region : regions_) {
        if (!region.writable) {
            continue;
        }
        region.bytes.resize(region.end - region.start);
        if (!memory.read(region.start, region.bytes.data(), region.bytes.size())) {
            region.bytes.clear(); // not readable (a device's mapping): left as it is
        }
    }
    spdlog::debug("diversion of thread {}: {} mappings kept", task_.tid(), regions_.size());
}

std::vector<Diversion::Region> Diversion::mappings(pid_t host_pid) {
    std::vector<Region> regions;
    std::ifstream maps("/proc/" + std::to_string(host_pid) + "/maps");
    std::string line;
    while (std::getline(maps, line)) {
        std::istringstream fields(line);
        std::string range;
        std::string permissions;
        fields >> range >> permissions;
        const size_t dash = range.find('-');
        if (dash == std::string::npos || permissions.size() < 2) {
            continue;
        }
        Region region;
        region.start = std::stoull(range.substr(0, dash), nullptr, 16);
        region.end = std::stoull(range.substr(dash + 1), nullptr, 16);
        region.writable = permissions[1] == 'w';
        regions.push_back(std::move(region));
    }
    return regions;
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
    const user_regs_struct& then = registers_;
    return now.rax == then.rax && now.rbx == then.rbx && now.rcx == then.rcx && now.rdx == then.rdx &&
           now.rsi == then.rsi && now.rdi == then.rdi && now.rbp == then.rbp && now.rsp == then.rsp &&
           now.r8 == then.r8 && now.r9 == then.r9 && now.r10 == then.r10 && now.r11 == then.r11 &&
           now.r12 == then.r12 && now.r13 == then.r13 && now.r14 == then.r14 && now.r15 == then.r15 &&
           now.rip == then.rip && now.fs_base == then.fs_base &&
           (now.eflags & kStatusFlags) == (then.eflags & kStatusFlags);
}

void Diversion::undo() {
    if (static_cast<uint64_t>(call(SYS_brk, {0, 0, 0, 0, 0, 0})) != program_break_) {
        call(SYS_brk, {program_break_, 0, 0, 0, 0, 0});
    }
    // Mappings the diversion made (malloc's, say): the replay's later mmaps must find the same gaps.
    for (const Region& now : mappings(task_.host_pid())) {
        uint64_t start = now.start;
        for (const Region& kept : regions_) {
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
    tracer::ProcessMemoryFile memory(task_.host_tid());
    for (const Region& region : regions_) {
        if (!region.bytes.empty() && !memory.write(region.start, region.bytes.data(), region.bytes.size())) {
            spdlog::warn("a diversion's writes to {:#x}-{:#x} could not be undone", region.start, region.end);
        }
    }
    task_.set_registers(registers_);
    task_.flush_registers();
    iovec buffer{extended_state_.data(), extended_state_.size()};
    ptrace(PTRACE_SETREGSET, task_.host_tid(), NT_X86_XSTATE, &buffer);
    if (signal_) {
        ptrace(PTRACE_SETSIGINFO, task_.host_tid(), nullptr, &*signal_);
    }
}

} // namespace hermit::replay
