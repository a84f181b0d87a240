// replay/GdbRegisterLayout: kernel register structs <-> gdb's amd64 `g` bytes.
#include "replay/GdbRegisterLayout.h"
#include "gdbserver/Amd64Registers.h"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

namespace hermit::replay {
namespace {

namespace amd64 = gdbserver::amd64;

uint64_t read_field(const std::vector<uint8_t>& bytes, int regno) {
    const auto& info = amd64::registers()[static_cast<size_t>(regno)];
    uint64_t value = 0;
    std::memcpy(&value, bytes.data() + info.offset, std::min<size_t>(info.size, 8));
    return value;
}

void set_st(user_fpregs_struct& fp, int stack_index, uint64_t mantissa, uint16_t exponent) {
    auto* slot = reinterpret_cast<uint8_t*>(fp.st_space) + stack_index * 16;
    std::memcpy(slot, &mantissa, 8);
    std::memcpy(slot + 8, &exponent, 2);
}

KernelRegisters sample() {
    KernelRegisters registers;
    user_regs_struct& general = registers.general;
    general.rax = 0x1111111111111111;
    general.rbx = 0x2222;
    general.rsp = 0x7ffffffde000;
    general.r15 = 0xf15;
    general.rip = 0x401000;
    general.eflags = 0x246;
    general.cs = 0x33;
    general.ss = 0x2b;
    general.fs_base = 0x7ffff7d8a740;
    general.gs_base = 0x1234;
    general.orig_rax = 0xffffffffffffffff;
    user_fpregs_struct& fp = registers.floating_point;
    fp.cwd = 0x37f;
    fp.swd = 0x3800; // top = 7
    fp.fop = 0x7ff;
    fp.rip = 0x0000abcd12345678;
    fp.rdp = 0x00001234deadbeef;
    fp.mxcsr = 0x1f80;
    fp.ftw = 0x81; // physical registers 0 and 7 in use: st(1) and st(0) when top is 7
    set_st(fp, 0, 0x8000000000000000, 0x3fff); // 1.0: valid
    set_st(fp, 1, 0, 0);                       // +0.0: zero
    for (int i = 0; i < 64; ++i) {
        fp.xmm_space[i] = 0x01010101u * static_cast<unsigned>(i);
    }
    return registers;
}

TEST(GdbRegisterLayout, PlacesGeneralRegistersInGdbOrder) {
    std::vector<uint8_t> bytes = gdb_registers_from_kernel(sample());
    ASSERT_EQ(bytes.size(), amd64::register_file_size());
    EXPECT_EQ(read_field(bytes, amd64::kRax), 0x1111111111111111u);
    EXPECT_EQ(read_field(bytes, amd64::kRbx), 0x2222u);
    EXPECT_EQ(read_field(bytes, amd64::kRsp), 0x7ffffffde000u);
    EXPECT_EQ(read_field(bytes, amd64::kR15), 0xf15u);
    EXPECT_EQ(read_field(bytes, amd64::kRip), 0x401000u);
    EXPECT_EQ(read_field(bytes, amd64::kEflags), 0x246u);
    EXPECT_EQ(read_field(bytes, amd64::kCs), 0x33u);
    EXPECT_EQ(read_field(bytes, amd64::kSs), 0x2bu);
    EXPECT_EQ(read_field(bytes, amd64::kOrigRax), 0xffffffffffffffffu);
    EXPECT_EQ(read_field(bytes, amd64::kFsBase), 0x7ffff7d8a740u);
    EXPECT_EQ(read_field(bytes, amd64::kGsBase), 0x1234u);
}

TEST(GdbRegisterLayout, ConvertsFxsaveState) {
    std::vector<uint8_t> bytes = gdb_registers_from_kernel(sample());
    EXPECT_EQ(read_field(bytes, amd64::kFctrl), 0x37fu);
    EXPECT_EQ(read_field(bytes, amd64::kFstat), 0x3800u);
    // Physical 7 = st(0) = 1.0 is valid (00), physical 0 = st(1) = +0 is zero (01), the rest empty (11).
    EXPECT_EQ(read_field(bytes, amd64::kFtag), 0b0011111111111101u);
    EXPECT_EQ(read_field(bytes, amd64::kFioff), 0x12345678u);
    EXPECT_EQ(read_field(bytes, amd64::kFiseg), 0xabcdu);
    EXPECT_EQ(read_field(bytes, amd64::kFooff), 0xdeadbeefu);
    EXPECT_EQ(read_field(bytes, amd64::kFoseg), 0x1234u);
    EXPECT_EQ(read_field(bytes, amd64::kFop), 0x7ffu);
    EXPECT_EQ(read_field(bytes, amd64::kMxcsr), 0x1f80u);
    const auto& st0 = amd64::registers()[amd64::kSt0];
    EXPECT_EQ(bytes[st0.offset + 7], 0x80);
    EXPECT_EQ(bytes[st0.offset + 9], 0x3f);
    const auto& xmm1 = amd64::registers()[amd64::kXmm1];
    EXPECT_EQ(bytes[xmm1.offset], 4);
    EXPECT_EQ(bytes[xmm1.offset + 15], 7);
}

TEST(GdbRegisterLayout, ClassifiesSpecialX87Values) {
    KernelRegisters registers;
    registers.floating_point.ftw = 0x0f;
    set_st(registers.floating_point, 0, 0xc000000000000000, 0x7fff); // NaN
    set_st(registers.floating_point, 1, 1, 0);                       // denormal
    set_st(registers.floating_point, 2, 0x4000000000000000, 0x3fff); // unnormal (integer bit clear)
    set_st(registers.floating_point, 3, 0x8000000000000000, 0xbfff); // -1.0
    std::vector<uint8_t> bytes = gdb_registers_from_kernel(registers);
    EXPECT_EQ(read_field(bytes, amd64::kFtag), 0xff00u | 0b00101010u);
}

TEST(GdbRegisterLayout, RoundTripsThroughGdbBytes) {
    KernelRegisters original = sample();
    std::vector<uint8_t> bytes = gdb_registers_from_kernel(original);
    KernelRegisters converted;
    ASSERT_TRUE(kernel_registers_from_gdb(bytes, converted));
    EXPECT_EQ(gdb_registers_from_kernel(converted), bytes);
    EXPECT_EQ(converted.general.rip, original.general.rip);
    EXPECT_EQ(converted.general.fs_base, original.general.fs_base);
    EXPECT_EQ(converted.floating_point.ftw, original.floating_point.ftw);
    EXPECT_EQ(converted.floating_point.rip, original.floating_point.rip);
    EXPECT_EQ(std::memcmp(converted.floating_point.xmm_space, original.floating_point.xmm_space, 256), 0);
}

TEST(GdbRegisterLayout, WritesKeepFieldsGdbDoesNotSee) {
    KernelRegisters registers = sample();
    registers.general.cs = 0xdead000000000033;
    registers.floating_point.mxcr_mask = 0xffbf;
    std::vector<uint8_t> bytes = gdb_registers_from_kernel(registers);
    uint64_t new_rip = 0x402000;
    std::memcpy(bytes.data() + amd64::registers()[amd64::kRip].offset, &new_rip, 8);
    ASSERT_TRUE(kernel_registers_from_gdb(bytes, registers));
    EXPECT_EQ(registers.general.rip, 0x402000u);
    EXPECT_EQ(registers.general.cs, 0xdead000000000033u);
    EXPECT_EQ(registers.floating_point.mxcr_mask, 0xffbfu);
}

TEST(GdbRegisterLayout, RejectsWrongSize) {
    KernelRegisters registers = sample();
    std::vector<uint8_t> short_bytes(100, 0xff);
    EXPECT_FALSE(kernel_registers_from_gdb(short_bytes, registers));
    EXPECT_EQ(registers.general.rax, 0x1111111111111111u);
}

// The layout against the real kernel: a child loads known values into r12, xmm0 and the x87 stack, then
// stops itself with a raw kill syscall so that no library code disturbs them.
TEST(GdbRegisterLayout, ConvertsTheRegistersOfARealStoppedThread) {
    static const uint64_t kXmmValue[2] = {0x1122334455667788, 0x99aabbccddeeff00};
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
        long self = getpid();
        asm volatile("movdqu (%[xmm]), %%xmm0\n"
                     "fld1\n"
                     "mov %[pid], %%rdi\n"
                     "mov %[signal], %%rsi\n"
                     "mov %[kill], %%rax\n"
                     "mov $0x5eed, %%r12\n"
                     "syscall\n"
                     :
                     : [xmm] "r"(kXmmValue), [pid] "r"(self), [signal] "i"(SIGSTOP), [kill] "i"(SYS_kill)
                     : "rax", "rdi", "rsi", "r12", "rcx", "r11", "xmm0", "memory");
        _exit(0);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSTOPPED(status));
    KernelRegisters registers;
    EXPECT_EQ(ptrace(PTRACE_GETREGS, child, nullptr, &registers.general), 0);
    EXPECT_EQ(ptrace(PTRACE_GETFPREGS, child, nullptr, &registers.floating_point), 0);
    kill(child, SIGKILL);
    waitpid(child, &status, 0);

    std::vector<uint8_t> bytes = gdb_registers_from_kernel(registers);
    EXPECT_EQ(read_field(bytes, amd64::kR12), 0x5eedu);
    EXPECT_EQ(read_field(bytes, amd64::kOrigRax), static_cast<uint64_t>(SYS_kill));
    const auto& xmm0 = amd64::registers()[amd64::kXmm0];
    EXPECT_EQ(std::memcmp(bytes.data() + xmm0.offset, kXmmValue, 16), 0);
    // fld1 pushed 1.0: top is 7, physical register 7 holds a valid value and the others are empty.
    EXPECT_EQ((read_field(bytes, amd64::kFstat) >> 11) & 7, 7u);
    EXPECT_EQ(read_field(bytes, amd64::kFtag), 0x3fffu);
    const auto& st0 = amd64::registers()[amd64::kSt0];
    const uint8_t one[10] = {0, 0, 0, 0, 0, 0, 0, 0x80, 0xff, 0x3f};
    EXPECT_EQ(std::memcmp(bytes.data() + st0.offset, one, 10), 0);
    EXPECT_EQ(read_field(bytes, amd64::kFctrl), 0x37fu);
    EXPECT_EQ(read_field(bytes, amd64::kMxcsr) & 0xffc0, 0x1f80u);
    EXPECT_EQ(read_field(bytes, amd64::kCs), 0x33u);
}

} // namespace
} // namespace hermit::replay
