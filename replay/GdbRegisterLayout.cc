#include "GdbRegisterLayout.h"

#include "gdbserver/Amd64Registers.h"

#include <cstring>

namespace hermit::replay {

namespace {

namespace amd64 = gdbserver::amd64;

// Where each general register lives in user_regs_struct, in gdb's order rax..gs.
using GeneralField = unsigned long long user_regs_struct::*;
constexpr GeneralField kGeneralFields[] = {
    &user_regs_struct::rax, &user_regs_struct::rbx,    &user_regs_struct::rcx, &user_regs_struct::rdx,
    &user_regs_struct::rsi, &user_regs_struct::rdi,    &user_regs_struct::rbp, &user_regs_struct::rsp,
    &user_regs_struct::r8,  &user_regs_struct::r9,     &user_regs_struct::r10, &user_regs_struct::r11,
    &user_regs_struct::r12, &user_regs_struct::r13,    &user_regs_struct::r14, &user_regs_struct::r15,
    &user_regs_struct::rip, &user_regs_struct::eflags, &user_regs_struct::cs,  &user_regs_struct::ss,
    &user_regs_struct::ds,  &user_regs_struct::es,     &user_regs_struct::fs,  &user_regs_struct::gs,
};
static_assert(std::size(kGeneralFields) == amd64::kGs + 1);

constexpr size_t kX87RegisterStride = 16; // FXSAVE keeps each 10-byte st register in a 16-byte slot
constexpr size_t kX87RegisterSize = 10;
constexpr size_t kXmmSize = 16;
constexpr unsigned kTagValid = 0;
constexpr unsigned kTagZero = 1;
constexpr unsigned kTagSpecial = 2;
constexpr unsigned kTagEmpty = 3;

uint8_t* slot(std::vector<uint8_t>& bytes, int regno) {
    return bytes.data() + amd64::registers()[static_cast<size_t>(regno)].offset;
}
const uint8_t* slot(std::span<const uint8_t> bytes, int regno) {
    return bytes.data() + amd64::registers()[static_cast<size_t>(regno)].offset;
}

// Little-endian store/load of the low `size` bytes, the byte order of both layouts.
void store(std::vector<uint8_t>& bytes, int regno, uint64_t value) {
    std::memcpy(slot(bytes, regno), &value, amd64::registers()[static_cast<size_t>(regno)].size);
}
uint64_t load(std::span<const uint8_t> bytes, int regno) {
    uint64_t value = 0;
    std::memcpy(&value, slot(bytes, regno), amd64::registers()[static_cast<size_t>(regno)].size);
    return value;
}

const uint8_t* st_space(const user_fpregs_struct& fp) {
    return reinterpret_cast<const uint8_t*>(fp.st_space);
}
uint8_t* st_space(user_fpregs_struct& fp) {
    return reinterpret_cast<uint8_t*>(fp.st_space);
}
const uint8_t* xmm_space(const user_fpregs_struct& fp) {
    return reinterpret_cast<const uint8_t*>(fp.xmm_space);
}
uint8_t* xmm_space(user_fpregs_struct& fp) {
    return reinterpret_cast<uint8_t*>(fp.xmm_space);
}

// The x87 tag of an 80-bit value, as the full tag word encodes it.
unsigned classify(const uint8_t* value) {
    uint64_t mantissa = 0;
    std::memcpy(&mantissa, value, 8);
    unsigned exponent = (value[8] | value[9] << 8) & 0x7fff;
    if (exponent == 0x7fff) {
        return kTagSpecial;
    }
    if (exponent == 0) {
        return mantissa == 0 ? kTagZero : kTagSpecial;
    }
    return (mantissa >> 63) != 0 ? kTagValid : kTagSpecial;
}

// FXSAVE stores an abridged tag (one "not empty" bit per physical register) while gdb's ftag is the
// full 2-bit-per-register tag word; the missing detail is recomputed from the register contents. The st
// slots are stack-relative, so physical register i is st((i - top) mod 8).
unsigned full_tag_word(const user_fpregs_struct& fp) {
    unsigned top = (fp.swd >> 11) & 7;
    unsigned tags = 0;
    for (unsigned physical = 0; physical < 8; ++physical) {
        unsigned tag = kTagEmpty;
        if (fp.ftw & (1u << physical)) {
            unsigned stack_index = (physical - top) & 7;
            tag = classify(st_space(fp) + stack_index * kX87RegisterStride);
        }
        tags |= tag << (2 * physical);
    }
    return tags;
}

unsigned short abridged_tag(unsigned full_tags) {
    unsigned short abridged = 0;
    for (unsigned physical = 0; physical < 8; ++physical) {
        if (((full_tags >> (2 * physical)) & 3) != kTagEmpty) {
            abridged = static_cast<unsigned short>(abridged | 1u << physical);
        }
    }
    return abridged;
}

} // namespace

std::vector<uint8_t> gdb_registers_from_kernel(const KernelRegisters& registers) {
    std::vector<uint8_t> bytes(amd64::register_file_size());
    for (int regno = amd64::kRax; regno <= amd64::kGs; ++regno) {
        store(bytes, regno, registers.general.*kGeneralFields[regno]);
    }
    const user_fpregs_struct& fp = registers.floating_point;
    for (int i = 0; i < 8; ++i) {
        std::memcpy(slot(bytes, amd64::kSt0 + i), st_space(fp) + i * kX87RegisterStride, kX87RegisterSize);
    }
    store(bytes, amd64::kFctrl, fp.cwd);
    store(bytes, amd64::kFstat, fp.swd);
    store(bytes, amd64::kFtag, full_tag_word(fp));
    // In the 64-bit FXSAVE format the last instruction and operand pointers are 64-bit offsets; gdb
    // shows their low half as fioff/fooff and bits 32-47 as fiseg/foseg.
    store(bytes, amd64::kFiseg, (fp.rip >> 32) & 0xffff);
    store(bytes, amd64::kFioff, fp.rip & 0xffffffff);
    store(bytes, amd64::kFoseg, (fp.rdp >> 32) & 0xffff);
    store(bytes, amd64::kFooff, fp.rdp & 0xffffffff);
    store(bytes, amd64::kFop, fp.fop & 0x7ff);
    for (int i = 0; i < 16; ++i) {
        std::memcpy(slot(bytes, amd64::kXmm0 + i), xmm_space(fp) + i * kXmmSize, kXmmSize);
    }
    store(bytes, amd64::kMxcsr, fp.mxcsr);
    store(bytes, amd64::kOrigRax, registers.general.orig_rax);
    store(bytes, amd64::kFsBase, registers.general.fs_base);
    store(bytes, amd64::kGsBase, registers.general.gs_base);
    return bytes;
}

bool kernel_registers_from_gdb(std::span<const uint8_t> bytes, KernelRegisters& registers) {
    if (bytes.size() != amd64::register_file_size()) {
        return false;
    }
    for (int regno = amd64::kRax; regno <= amd64::kGs; ++regno) {
        unsigned long long& field = registers.general.*kGeneralFields[regno];
        if (amd64::registers()[static_cast<size_t>(regno)].size == 8) {
            field = load(bytes, regno);
        } else {
            field = (field & ~0xffffffffULL) | load(bytes, regno);
        }
    }
    user_fpregs_struct& fp = registers.floating_point;
    for (int i = 0; i < 8; ++i) {
        std::memcpy(st_space(fp) + i * kX87RegisterStride, slot(bytes, amd64::kSt0 + i), kX87RegisterSize);
    }
    fp.cwd = static_cast<unsigned short>(load(bytes, amd64::kFctrl));
    fp.swd = static_cast<unsigned short>(load(bytes, amd64::kFstat));
    fp.ftw = abridged_tag(static_cast<unsigned>(load(bytes, amd64::kFtag)));
    fp.fop = static_cast<unsigned short>(load(bytes, amd64::kFop) & 0x7ff);
    fp.rip = (load(bytes, amd64::kFiseg) & 0xffff) << 32 | load(bytes, amd64::kFioff);
    fp.rdp = (load(bytes, amd64::kFoseg) & 0xffff) << 32 | load(bytes, amd64::kFooff);
    for (int i = 0; i < 16; ++i) {
        std::memcpy(xmm_space(fp) + i * kXmmSize, slot(bytes, amd64::kXmm0 + i), kXmmSize);
    }
    fp.mxcsr = static_cast<unsigned>(load(bytes, amd64::kMxcsr));
    registers.general.orig_rax = load(bytes, amd64::kOrigRax);
    registers.general.fs_base = load(bytes, amd64::kFsBase);
    registers.general.gs_base = load(bytes, amd64::kGsBase);
    return true;
}

} // namespace hermit::replay
