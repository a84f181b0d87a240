// DebugTarget's breakpoints and watchpoints: int3s planted in the debugged process (kept out of the other
// processes), the x86 debug registers gdb's watch ranges are split over, and the emulation of write
// watchpoints where those never trap (DebugTarget.h).
#include "DebugTarget.h"

#include "DebugRegisters.h"
#include "tracer/Task.h"

#include <linux/kcmp.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <unistd.h>

#include <algorithm>

namespace hermit::replay {

namespace {

constexpr uint8_t kInt3 = 0xcc;

// The naturally aligned pieces of 1, 2, 4 or 8 bytes, one per debug register, that cover `watch`.
std::vector<WatchRange> debug_register_pieces(const WatchRange& watch) {
    std::vector<WatchRange> pieces;
    uint64_t address = watch.address;
    const uint64_t end = watch.address + watch.length;
    while (address < end) {
        uint64_t length = 8;
        while (address % length != 0 || address + length > end) {
            length /= 2;
        }
        pieces.push_back(WatchRange{watch.kind, address, length});
        address += length;
    }
    return pieces;
}

} // namespace

bool DebugTarget::plant_breakpoint(uint64_t address) {
    if (breakpoints_.contains(address)) {
        return true;
    }
    if (!runs_known_program()) {
        waiting_breakpoints_.insert(address);
        return true;
    }
    tracer::Task& task = *stopped_.front();
    uint8_t original = 0;
    if (task.read(address, &original, 1) && task.write(address, &kInt3, 1)) {
        breakpoints_[address] = original;
        return true;
    }
    return false;
}

void DebugTarget::unplant_breakpoint(uint64_t address) {
    waiting_breakpoints_.erase(address);
    auto found = breakpoints_.find(address);
    if (found != breakpoints_.end()) {
        stopped_.front()->write(address, &found->second, 1);
        breakpoints_.erase(found);
    }
}

bool DebugTarget::set_watch_slots(const std::vector<WatchRange>& watches) {
    std::array<std::optional<WatchRange>, kDebugRegisterSlots> slots;
    std::array<size_t, kDebugRegisterSlots> owners{};
    size_t used = 0;
    for (size_t owner = 0; owner < watches.size(); ++owner) {
        for (const WatchRange& piece : debug_register_pieces(watches[owner])) {
            if (used == slots.size()) {
                return false;
            }
            slots[used] = piece;
            owners[used++] = owner;
        }
    }
    if (!runs_known_program()) {
        slots.fill(std::nullopt); // armed at the exec that starts the known program
    }
    watches_ = slots;
    watch_owners_ = owners;
    requested_watches_ = watches;
    ++watch_generation_;
    for (tracer::Task* task : stopped_) {
        apply_watchpoints(*task);
    }
    return true;
}

bool DebugTarget::insert_breakpoint(gdbserver::BreakpointKind, uint64_t address, int) {
    bool inserted = false;
    on_tracer([&] { inserted = plant_breakpoint(address); });
    return inserted;
}

bool DebugTarget::remove_breakpoint(gdbserver::BreakpointKind, uint64_t address, int) {
    bool removed = false;
    on_tracer([&] {
        removed = breakpoints_.contains(address) || waiting_breakpoints_.contains(address);
        unplant_breakpoint(address);
    });
    return removed;
}

bool DebugTarget::insert_watchpoint(gdbserver::WatchKind kind, uint64_t address, uint64_t length) {
    if (length == 0) {
        return false;
    }
    bool inserted = false;
    on_tracer([&] {
        // Probed here, on the tracer thread, which is then the only one that waits for children.
        if (!emulate_watches_ && !host_delivers_watchpoint_traps()) {
            emulate_watches_ = true;
            spdlog::info("this host's debug registers never trap: write watchpoints single-step the "
                         "debugged process and compare the watched bytes after each instruction");
        }
        if (emulate_watches_ && kind != gdbserver::WatchKind::Write) {
            spdlog::warn("read and access watchpoints refused: they need debug registers that trap, and "
                         "this host's never do");
            return;
        }
        std::vector<WatchRange> watches = armed_watches();
        watches.push_back(WatchRange{kind, address, length});
        inserted = set_watch_slots(watches);
    });
    return inserted;
}

bool DebugTarget::remove_watchpoint(gdbserver::WatchKind kind, uint64_t address, uint64_t length) {
    bool removed = false;
    on_tracer([&] {
        std::vector<WatchRange> watches = armed_watches();
        auto found = std::find(watches.begin(), watches.end(), WatchRange{kind, address, length});
        if (found != watches.end()) {
            watches.erase(found);
            set_watch_slots(watches);
            removed = true;
        }
    });
    return removed;
}

std::vector<WatchRange> DebugTarget::armed_watches() const {
    return requested_watches_;
}

bool DebugTarget::watch_armed() const {
    return std::any_of(watches_.begin(), watches_.end(),
                       [](const std::optional<WatchRange>& slot) { return slot.has_value(); });
}

void DebugTarget::apply_watchpoints(tracer::Task& task) {
    if (emulate_watches_) {
        return;
    }
    uint64_t& applied = applied_generation_[task.host_tid()];
    if (applied == watch_generation_) {
        return;
    }
    unsigned long control = 0;
    write_debug_register(task.host_tid(), kControlDr7, 0);
    for (size_t index = 0; index < watches_.size(); ++index) {
        const std::optional<WatchRange>& watch = watches_[index];
        if (!watch) {
            continue;
        }
        write_debug_register(task.host_tid(), static_cast<int>(index), watch->address);
        control |= dr7_enable_bits(index, watch->kind == gdbserver::WatchKind::Write, watch->length);
    }
    write_debug_register(task.host_tid(), kControlDr7, control);
    applied = watch_generation_;
}

void DebugTarget::forget_breakpoints_in(tracer::Task& task) {
    // Only a process's first resume matters: that is when it holds what it inherited at its fork.
    if (!processes_seen_.insert(task.host_pid()).second || debugged_pid_ == 0) {
        return;
    }
    const bool shares_memory = syscall(SYS_kcmp, host_pid_, task.host_pid(), KCMP_VM, 0, 0) == 0;
    if (shares_memory) {
        return; // the int3s are the debugged process's too: step_past_breakpoint() handles them
    }
    for (const auto& [address, original] : breakpoints_) {
        task.write(address, &original, 1);
    }
    if (one_shot_) {
        task.write(one_shot_->address, &one_shot_->original, 1);
    }
    if (watch_armed()) {
        write_debug_register(task.host_tid(), kControlDr7, 0);
    }
}

tracer::DebugResume DebugTarget::step_past_breakpoint(tracer::Task& task, int si_code, bool was_stepping) {
    // Back from the original instruction: the int3 goes back in, for the debugged process.
    if (auto lifted = stepping_past_.find(task.host_tid()); lifted != stepping_past_.end() && was_stepping) {
        if (breakpoints_.contains(lifted->second)) {
            task.write(lifted->second, &kInt3, 1);
        }
        stepping_past_.erase(lifted);
        return tracer::DebugResume::Resume;
    }
    if (si_code != SI_KERNEL) {
        return tracer::DebugResume::NotMine;
    }
    user_regs_struct registers = task.registers();
    const uint64_t address = registers.rip - 1;
    auto found = breakpoints_.find(address);
    uint8_t byte = 0;
    if (found == breakpoints_.end() || !task.read(address, &byte, 1) || byte != kInt3) {
        return tracer::DebugResume::NotMine;
    }
    task.write(address, &found->second, 1);
    registers.rip = address;
    task.set_registers(registers);
    stepping_past_[task.host_tid()] = address;
    return tracer::DebugResume::Resume;
}

void DebugTarget::plant_one_shot(tracer::Task& task, uint64_t address, bool at_event) {
    uint8_t original = 0;
    if (task.read(address, &original, 1) && task.write(address, &kInt3, 1)) {
        one_shot_ = OneShot{address, original, at_event};
    }
}

std::optional<size_t> DebugTarget::triggered_watch(tracer::Task& task, bool was_stepping) {
    if (emulate_watches_) {
        return was_stepping ? written_watch(task) : std::nullopt;
    }
    const unsigned long status = read_debug_register(task.host_tid(), kStatusDr6);
    if (status != 0) {
        write_debug_register(task.host_tid(), kStatusDr6, 0); // the CPU never clears DR6
    }
    for (size_t index = 0; index < watches_.size(); ++index) {
        if ((status & (1UL << index)) != 0 && watches_[index]) {
            return index;
        }
    }
    return std::nullopt;
}

void DebugTarget::remember_watched_bytes(tracer::Task& task) {
    WatchedBytes& bytes = watched_before_step_[task.host_tid()];
    for (size_t index = 0; index < watches_.size(); ++index) {
        bytes[index] = 0;
        if (watches_[index]) {
            task.read(watches_[index]->address, &bytes[index], watches_[index]->length);
        }
    }
}

std::optional<size_t> DebugTarget::written_watch(tracer::Task& task) const {
    const auto before = watched_before_step_.find(task.host_tid());
    if (before == watched_before_step_.end()) {
        return std::nullopt;
    }
    for (size_t index = 0; index < watches_.size(); ++index) {
        uint64_t now = 0;
        if (watches_[index] && task.read(watches_[index]->address, &now, watches_[index]->length) &&
            now != before->second[index]) {
            return index;
        }
    }
    return std::nullopt;
}

} // namespace hermit::replay
