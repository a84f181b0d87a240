#include "Amd64Registers.h"

namespace hermit::gdbserver::amd64 {

namespace {

struct NameAndSize {
    std::string_view name;
    size_t size;
};

// The segment registers and eflags are 32 bits wide in gdb's amd64 description even though the kernel
// stores them in 64-bit slots; st0-7 are 80-bit x87 values.
constexpr std::array<NameAndSize, kRegisterCount> kLayout = {{
    {"rax", 8},    {"rbx", 8},    {"rcx", 8},    {"rdx", 8},      {"rsi", 8},     {"rdi", 8},
    {"rbp", 8},    {"rsp", 8},    {"r8", 8},     {"r9", 8},       {"r10", 8},     {"r11", 8},
    {"r12", 8},    {"r13", 8},    {"r14", 8},    {"r15", 8},      {"rip", 8},     {"eflags", 4},
    {"cs", 4},     {"ss", 4},     {"ds", 4},     {"es", 4},       {"fs", 4},      {"gs", 4},
    {"st0", 10},   {"st1", 10},   {"st2", 10},   {"st3", 10},     {"st4", 10},    {"st5", 10},
    {"st6", 10},   {"st7", 10},   {"fctrl", 4},  {"fstat", 4},    {"ftag", 4},    {"fiseg", 4},
    {"fioff", 4},  {"foseg", 4},  {"fooff", 4},  {"fop", 4},      {"xmm0", 16},   {"xmm1", 16},
    {"xmm2", 16},  {"xmm3", 16},  {"xmm4", 16},  {"xmm5", 16},    {"xmm6", 16},   {"xmm7", 16},
    {"xmm8", 16},  {"xmm9", 16},  {"xmm10", 16}, {"xmm11", 16},   {"xmm12", 16},  {"xmm13", 16},
    {"xmm14", 16}, {"xmm15", 16}, {"mxcsr", 4},  {"orig_rax", 8}, {"fs_base", 8}, {"gs_base", 8},
}};

constexpr std::array<RegisterInfo, kRegisterCount> build_table() {
    std::array<RegisterInfo, kRegisterCount> table{};
    size_t offset = 0;
    for (size_t i = 0; i < kLayout.size(); ++i) {
        table[i] = {kLayout[i].name, kLayout[i].size, offset};
        offset += kLayout[i].size;
    }
    return table;
}

constexpr std::array<RegisterInfo, kRegisterCount> kTable = build_table();

} // namespace

const std::array<RegisterInfo, kRegisterCount>& registers() {
    return kTable;
}

size_t register_file_size() {
    return kTable.back().offset + kTable.back().size;
}

std::optional<RegisterInfo> register_info(int regno) {
    if (regno < 0 || regno >= kRegisterCount) {
        return std::nullopt;
    }
    return kTable[static_cast<size_t>(regno)];
}

} // namespace hermit::gdbserver::amd64
