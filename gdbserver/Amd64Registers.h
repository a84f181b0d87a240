#pragma once
// Amd64Registers: the register file gdb sees for an x86-64 Linux thread, in the order and sizes of the
// target description we send (Amd64TargetDescription). `g` replies are these registers concatenated in
// register-number order, each little-endian; targets and converters (replay/GdbRegisterLayout) build
// and read that byte layout through this table.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace hermit::gdbserver::amd64 {

// clang-format off
enum Register : int {
    kRax, kRbx, kRcx, kRdx, kRsi, kRdi, kRbp, kRsp,
    kR8, kR9, kR10, kR11, kR12, kR13, kR14, kR15,
    kRip, kEflags,
    kCs, kSs, kDs, kEs, kFs, kGs,
    kSt0, kSt1, kSt2, kSt3, kSt4, kSt5, kSt6, kSt7,
    kFctrl, kFstat, kFtag, kFiseg, kFioff, kFoseg, kFooff, kFop,
    kXmm0, kXmm1, kXmm2, kXmm3, kXmm4, kXmm5, kXmm6, kXmm7,
    kXmm8, kXmm9, kXmm10, kXmm11, kXmm12, kXmm13, kXmm14, kXmm15,
    kMxcsr,
    kOrigRax,
    kFsBase, kGsBase,
    kRegisterCount
};
// clang-format on

struct RegisterInfo {
    std::string_view name;
    size_t size;   // bytes
    size_t offset; // bytes from the start of the `g` layout
};

// Size and offset of every register, by register number.
const std::array<RegisterInfo, kRegisterCount>& registers();
// Total size of the `g` layout in bytes.
size_t register_file_size();
// nullopt when `regno` is not a register number.
std::optional<RegisterInfo> register_info(int regno);

} // namespace hermit::gdbserver::amd64
