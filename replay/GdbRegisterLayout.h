#pragma once
// GdbRegisterLayout: converts a stopped thread's kernel register state (ptrace's user_regs_struct and
// the FXSAVE-format user_fpregs_struct) to and from the byte layout of gdb's amd64 `g` packet
// (gdbserver/Amd64Registers.h). It only converts values; reading and writing them with ptrace is the
// replay target's business.

#include <sys/user.h>

#include <cstdint>
#include <span>
#include <vector>

namespace hermit::replay {

struct KernelRegisters {
    user_regs_struct general{};
    user_fpregs_struct floating_point{};
};

// The `g` bytes for `registers`: amd64::register_file_size() bytes.
std::vector<uint8_t> gdb_registers_from_kernel(const KernelRegisters& registers);

// Applies `bytes` (a full `g` layout) over `registers`. Kernel fields gdb does not see (the upper bits
// of the 32-bit segment and eflags slots, mxcsr_mask, padding) keep their values. Returns false, leaving
// `registers` unchanged, when `bytes` has the wrong size.
bool kernel_registers_from_gdb(std::span<const uint8_t> bytes, KernelRegisters& registers);

} // namespace hermit::replay
