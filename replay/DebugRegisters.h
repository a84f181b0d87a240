#pragma once
// DebugRegisters: the x86 debug registers of a ptrace-stopped thread, which hold gdb's hardware
// watchpoints (DR0-DR3 addresses, DR6 status, DR7 control), and whether this host makes them trap at all.

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace hermit::replay {

constexpr int kStatusDr6 = 6;
constexpr int kControlDr7 = 7;

unsigned long read_debug_register(pid_t tid, int index);
bool write_debug_register(pid_t tid, int index, unsigned long value);

// The DR7 bits that enable address slot `slot` (0-3) for writes, or for every access (x86 has no
// read-only watch), of `length` bytes (1, 2, 4 or 8).
unsigned long dr7_enable_bits(size_t slot, bool writes_only, uint64_t length);

// Whether a write watched through ptrace stops the writer with SIGTRAP and a DR6 that names the slot.
// Some virtual machines accept the registers and never trap. Probed once per process, in a forked child.
bool host_delivers_watchpoint_traps();

} // namespace hermit::replay
