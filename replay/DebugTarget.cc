#include "DebugTarget.h"

#include "GdbRegisterLayout.h"
#include "tracer/Task.h"

#include <elf.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace hermit::replay {

namespace {

using gdbserver::StopReason;
using gdbserver::ThreadId;

constexpr uint8_t kInt3 = 0xcc;
constexpr uint64_t kPageSize = 4096;
constexpr int kStatusDr6 = 6;
constexpr int kControlDr7 = 7;

ThreadId thread_id(const tracer::Task& task) {
    return ThreadId{task.pid(), task.tid()};
}

size_t debug_register_offset(int index) {
    return offsetof(struct user, u_debugreg) + index * sizeof(long);
}

unsigned long read_debug_register(const tracer::Task& task, int index) {
    return static_cast<unsigned long>(
        ptrace(PTRACE_PEEKUSER, task.host_tid(), debug_register_offset(index), nullptr));
}

void write_debug_register(const tracer::Task& task, int index, unsigned long value) {
    ptrace(PTRACE_POKEUSER, task.host_tid(), debug_register_offset(index), value);
}

// DR7 length field (bits 18+4i): 1, 2, 8, 4 bytes are 00, 01, 10, 11.
unsigned long dr7_length_bits(uint64_t length) {
    switch (length) {
    case 1:
        return 0b00;
    case 2:
        return 0b01;
    case 8:
        return 0b10;
    default:
        return 0b11;
    }
}

std::vector<uint8_t> read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

uint64_t auxv_entry(const std::vector<uint8_t>& auxv) {
    for (size_t offset = 0; offset + sizeof(Elf64_auxv_t) <= auxv.size(); offset += sizeof(Elf64_auxv_t)) {
        Elf64_auxv_t entry;
        std::memcpy(&entry, auxv.data() + offset, sizeof(entry));
        if (entry.a_type == AT_ENTRY) {
            return entry.a_un.a_val;
        }
    }
    return 0;
}

} // namespace

DebugTarget::DebugTarget(GuestSession session) : session_(std::move(session)) {}

bool DebugTarget::start() {
    return bridge_.start([this] {
        return session_([this](tracer::GuestRun& run) {
            run.add_interceptor(static_cast<tracer::SyscallInterceptor*>(this));
            run.add_event_sink(static_cast<tracer::EventSink*>(this));
            run.session().set_debug_hook(static_cast<tracer::DebugHook*>(this));
        });
    });
}

std::optional<int> DebugTarget::finish() {
    bridge_.join();
    return bridge_.exit_status();
}

bool DebugTarget::on_tracer(const std::function<void()>& work) {
    bool ok = true;
    bridge_.call([&] {
        try {
            work();
        } catch (const std::exception& error) {
            spdlog::debug("debugger request failed: {}", error.what());
            ok = false;
        }
    });
    return ok;
}

tracer::Task* DebugTarget::find_task(const ThreadId& thread) {
    for (tracer::Task* task : stopped_) {
        if (thread.matches(thread_id(*task))) {
            return task;
        }
    }
    return nullptr;
}

std::vector<ThreadId> DebugTarget::threads() {
    std::vector<ThreadId> ids;
    for (tracer::Task* task : stopped_) {
        ids.push_back(thread_id(*task));
    }
    return ids;
}

std::vector<uint8_t> DebugTarget::read_registers(const ThreadId& thread) {
    std::vector<uint8_t> bytes;
    on_tracer([&] {
        tracer::Task* task = find_task(thread);
        if (task == nullptr) {
            return;
        }
        KernelRegisters registers;
        registers.general = task->registers();
        ptrace(PTRACE_GETFPREGS, task->host_tid(), nullptr, &registers.floating_point);
        bytes = gdb_registers_from_kernel(registers);
    });
    return bytes;
}

bool DebugTarget::write_registers(const ThreadId& thread, std::span<const uint8_t> bytes) {
    bool written = false;
    on_tracer([&] {
        tracer::Task* task = find_task(thread);
        if (task == nullptr) {
            return;
        }
        KernelRegisters registers;
        registers.general = task->registers();
        ptrace(PTRACE_GETFPREGS, task->host_tid(), nullptr, &registers.floating_point);
        if (!kernel_registers_from_gdb(bytes, registers)) {
            return;
        }
        task->set_registers(registers.general);
        written = ptrace(PTRACE_SETFPREGS, task->host_tid(), nullptr, &registers.floating_point) == 0;
    });
    return written;
}

size_t DebugTarget::read_memory(uint64_t address, std::span<uint8_t> out) {
    size_t count = 0;
    on_tracer([&] {
        if (stopped_.empty()) {
            return;
        }
        tracer::Task& task = *stopped_.front();
        // Page by page, so a read running into an unmapped page still returns what precedes it.
        while (count < out.size()) {
            uint64_t at = address + count;
            size_t chunk = std::min<uint64_t>(out.size() - count, kPageSize - at % kPageSize);
            if (!task.read(at, out.data() + count, chunk)) {
                break;
            }
            count += chunk;
        }
        // gdb must see the guest's own bytes, not the int3s standing in for them.
        auto hide = [&](uint64_t breakpoint, uint8_t original) {
            if (breakpoint >= address && breakpoint < address + count) {
                out[breakpoint - address] = original;
            }
        };
        for (const auto& [breakpoint, original] : breakpoints_) {
            hide(breakpoint, original);
        }
        if (entry_breakpoint_) {
            hide(entry_breakpoint_->first, entry_breakpoint_->second);
        }
    });
    return count;
}

bool DebugTarget::write_memory(uint64_t address, std::span<const uint8_t> bytes) {
    bool written = false;
    on_tracer([&] {
        if (!stopped_.empty()) {
            written = stopped_.front()->write(address, bytes.data(), bytes.size());
        }
    });
    return written;
}

StopReason DebugTarget::resume(const gdbserver::ResumeRequest& request, const gdbserver::InterruptCheck&) {
    const gdbserver::ThreadResume* action = request.action_for(stop_.thread);
    bool step = action != nullptr && action->kind == gdbserver::ResumeKind::Step;
    if (bridge_.resume(step ? DebugBridge::Resume::Step : DebugBridge::Resume::Continue)) {
        return stop_;
    }
    StopReason exited;
    exited.thread = ThreadId{stop_.thread.pid, stop_.thread.pid};
    try {
        int status = bridge_.exit_status().value_or(128 + SIGKILL);
        if (status > 128) {
            exited.kind = StopReason::Kind::Terminated;
            exited.signal = status - 128;
        } else {
            exited.kind = StopReason::Kind::Exited;
            exited.exit_code = status;
        }
    } catch (const std::exception& error) {
        spdlog::error("{}", error.what());
        exited.kind = StopReason::Kind::Terminated;
        exited.signal = SIGKILL;
    }
    return exited;
}

void DebugTarget::kill() {
    bridge_.abort();
}

void DebugTarget::detach() {
    on_tracer([&] {
        for (const auto& [address, original] : breakpoints_) {
            stopped_.front()->write(address, &original, 1);
        }
        breakpoints_.clear();
        watches_.fill(std::nullopt);
        ++watch_generation_;
        for (tracer::Task* task : stopped_) {
            apply_watchpoints(*task);
        }
        detached_ = true;
    });
    bridge_.release(DebugBridge::Resume::Continue);
}

bool DebugTarget::insert_breakpoint(gdbserver::BreakpointKind, uint64_t address, int) {
    bool inserted = false;
    on_tracer([&] {
        if (breakpoints_.contains(address)) {
            inserted = true;
            return;
        }
        tracer::Task& task = *stopped_.front();
        uint8_t original = 0;
        if (task.read(address, &original, 1) && task.write(address, &kInt3, 1)) {
            breakpoints_[address] = original;
            inserted = true;
        }
    });
    return inserted;
}

bool DebugTarget::remove_breakpoint(gdbserver::BreakpointKind, uint64_t address, int) {
    bool removed = false;
    on_tracer([&] {
        auto found = breakpoints_.find(address);
        if (found == breakpoints_.end()) {
            return;
        }
        removed = stopped_.front()->write(address, &found->second, 1);
        breakpoints_.erase(found);
    });
    return removed;
}

bool DebugTarget::insert_watchpoint(gdbserver::WatchKind kind, uint64_t address, uint64_t length) {
    // x86 debug registers watch 1, 2, 4 or 8 naturally aligned bytes; gdb splits other ranges.
    if ((length != 1 && length != 2 && length != 4 && length != 8) || address % length != 0) {
        return false;
    }
    bool inserted = false;
    on_tracer([&] {
        for (auto& slot : watches_) {
            if (!slot) {
                slot = Watch{kind, address, length};
                ++watch_generation_;
                for (tracer::Task* task : stopped_) {
                    apply_watchpoints(*task);
                }
                inserted = true;
                return;
            }
        }
    });
    return inserted;
}

bool DebugTarget::remove_watchpoint(gdbserver::WatchKind kind, uint64_t address, uint64_t length) {
    bool removed = false;
    on_tracer([&] {
        for (auto& slot : watches_) {
            if (slot && slot->kind == kind && slot->address == address && slot->length == length) {
                slot.reset();
                ++watch_generation_;
                for (tracer::Task* task : stopped_) {
                    apply_watchpoints(*task);
                }
                removed = true;
                return;
            }
        }
    });
    return removed;
}

void DebugTarget::apply_watchpoints(tracer::Task& task) {
    uint64_t& applied = applied_generation_[task.host_tid()];
    if (applied == watch_generation_) {
        return;
    }
    unsigned long control = 0;
    write_debug_register(task, kControlDr7, 0);
    for (size_t index = 0; index < watches_.size(); ++index) {
        const std::optional<Watch>& watch = watches_[index];
        if (!watch) {
            continue;
        }
        write_debug_register(task, static_cast<int>(index), watch->address);
        // R/W field (bits 16+4i): 01 break on writes, 11 on reads and writes (x86 has no read-only).
        unsigned long access = watch->kind == gdbserver::WatchKind::Write ? 0b01 : 0b11;
        control |= 1UL << (2 * index);
        control |= (access | dr7_length_bits(watch->length) << 2) << (16 + 4 * index);
    }
    write_debug_register(task, kControlDr7, control);
    applied = watch_generation_;
}

void DebugTarget::before_resume(tracer::Task& task) noexcept {
    apply_watchpoints(task);
}

std::vector<uint8_t> DebugTarget::read_auxv() {
    std::vector<uint8_t> auxv;
    on_tracer([&] { auxv = read_file("/proc/" + std::to_string(host_pid_) + "/auxv"); });
    return auxv;
}

std::string DebugTarget::exec_file_path(int64_t) {
    return executable_;
}

std::string DebugTarget::run_monitor_command(std::string_view command) {
    if (command == "when") {
        return "Current event: " + std::to_string(event_count_) + "\n";
    }
    return "hermit monitor commands:\n  when    the number of guest events so far (the replay position)\n";
}

void DebugTarget::on_exec(tracer::Task& task) {
    if (exec_seen_) {
        return; // a later exec replaces the program gdb is debugging; gdb keeps its first view
    }
    exec_seen_ = true;
    host_pid_ = task.host_pid();
    std::error_code error;
    executable_ =
        std::filesystem::read_symlink("/proc/" + std::to_string(host_pid_) + "/exe", error).string();
    // The first stop for gdb is at the program's entry point, once the dynamic loader is done.
    uint64_t entry = auxv_entry(read_file("/proc/" + std::to_string(host_pid_) + "/auxv"));
    uint8_t original = 0;
    if (entry != 0 && task.read(entry, &original, 1) && task.write(entry, &kInt3, 1)) {
        entry_breakpoint_ = std::make_pair(entry, original);
    }
}

void DebugTarget::on_event(const Event&) {
    ++event_count_;
}

std::optional<StopReason> DebugTarget::classify_trap(tracer::Task& task, int si_code, bool was_stepping) {
    StopReason stop;
    stop.thread = thread_id(task);
    stop.signal = SIGTRAP;
    user_regs_struct registers = task.registers();
    if (si_code == SI_KERNEL) {
        // An int3 leaves rip after itself; gdb expects the stop at the breakpoint's address.
        uint64_t address = registers.rip - 1;
        if (entry_breakpoint_ && entry_breakpoint_->first == address) {
            task.write(address, &entry_breakpoint_->second, 1);
            entry_breakpoint_.reset();
            registers.rip = address;
            task.set_registers(registers);
            return stop;
        }
        if (breakpoints_.contains(address)) {
            registers.rip = address;
            task.set_registers(registers);
            stop.kind = StopReason::Kind::SoftwareBreakpoint;
            return stop;
        }
    }
    unsigned long status = read_debug_register(task, kStatusDr6);
    if (status != 0) {
        write_debug_register(task, kStatusDr6, 0); // the CPU never clears DR6
    }
    for (size_t index = 0; index < watches_.size(); ++index) {
        if ((status & (1UL << index)) != 0 && watches_[index]) {
            stop.kind = StopReason::Kind::Watchpoint;
            stop.watch_address = watches_[index]->address;
            stop.watch_kind = watches_[index]->kind;
            return stop;
        }
    }
    if (was_stepping) {
        return stop;
    }
    return std::nullopt;
}

tracer::DebugResume DebugTarget::on_trap(tracer::Task& task, int si_code,
                                         const std::vector<tracer::Task*>& stopped) {
    bool was_stepping = stepping_.erase(task.host_tid()) > 0;
    if (detached_) {
        return was_stepping ? tracer::DebugResume::Continue : tracer::DebugResume::NotMine;
    }
    std::optional<StopReason> stop = classify_trap(task, si_code, was_stepping);
    if (!stop) {
        return tracer::DebugResume::NotMine;
    }
    stop_ = *stop;
    stopped_ = stopped;
    DebugBridge::Resume how;
    try {
        how = bridge_.serve_stop();
    } catch (const DebugRunAborted&) {
        stopped_.clear();
        throw;
    }
    stopped_.clear();
    if (how == DebugBridge::Resume::Step) {
        stepping_.insert(task.host_tid());
        return tracer::DebugResume::Step;
    }
    return tracer::DebugResume::Continue;
}

} // namespace hermit::replay
