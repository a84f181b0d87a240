#include "tracer/virt/InstructionEmulator.h"

#include "LocalMemory.h"

#include <gtest/gtest.h>

#include <array>

namespace hermit::tracer::virt {
namespace {

TEST(InstructionEmulatorTest, DecodesTheTrappedInstructions) {
    const std::array<uint8_t, 3> cpuid = {0x0f, 0xa2, 0x90};
    const std::array<uint8_t, 2> rdtsc = {0x0f, 0x31};
    const std::array<uint8_t, 3> rdtscp = {0x0f, 0x01, 0xf9};
    const std::array<uint8_t, 2> syscall = {0x0f, 0x05};
    const std::array<uint8_t, 2> truncated_rdtscp = {0x0f, 0x01};
    EXPECT_EQ(decode_trapped_instruction(cpuid)->kind, TrappedInstruction::Cpuid);
    EXPECT_EQ(decode_trapped_instruction(cpuid)->length, 2u);
    EXPECT_EQ(decode_trapped_instruction(rdtsc)->kind, TrappedInstruction::Rdtsc);
    EXPECT_EQ(decode_trapped_instruction(rdtscp)->kind, TrappedInstruction::Rdtscp);
    EXPECT_EQ(decode_trapped_instruction(rdtscp)->length, 3u);
    EXPECT_FALSE(decode_trapped_instruction(syscall));
    EXPECT_FALSE(decode_trapped_instruction(truncated_rdtscp));
}

class InstructionEmulatorFixture : public ::testing::Test {
protected:
    user_regs_struct at(const uint8_t* code) {
        user_regs_struct registers{};
        registers.rip = reinterpret_cast<uint64_t>(code);
        registers.rax = 0xdeadbeefcafef00dULL;
        registers.rcx = 0x1234567800000000ULL;
        return registers;
    }
    CpuidTable table;
    VirtualClock clock;
    InstructionEmulator emulator{table, clock};
    testing::LocalMemory memory;
};

TEST_F(InstructionEmulatorFixture, EmulatesCpuidFromTheTable) {
    static const uint8_t code[] = {0x0f, 0xa2};
    user_regs_struct registers = at(code);
    registers.rax = 1;
    registers.rcx = 0;
    const auto answer = emulator.emulate(registers, memory);
    ASSERT_TRUE(answer);
    const auto& event = std::get<CpuidEvent>(*answer);
    const CpuidRegisters expected = table.lookup(1, 0);
    EXPECT_EQ(event.leaf, 1u);
    EXPECT_EQ(registers.rcx, expected.ecx);
    EXPECT_EQ(registers.rbx, expected.ebx);
    EXPECT_EQ(registers.rip, reinterpret_cast<uint64_t>(code) + 2);
}

TEST_F(InstructionEmulatorFixture, EmulatesRdtscAndRdtscpWithIncreasingValues) {
    static const uint8_t rdtsc[] = {0x0f, 0x31};
    static const uint8_t rdtscp[] = {0x0f, 0x01, 0xf9};
    user_regs_struct first = at(rdtsc);
    const auto value = std::get<RdtscEvent>(*emulator.emulate(first, memory)).value;
    EXPECT_EQ((first.rdx << 32) | first.rax, value);
    EXPECT_EQ(first.rip, reinterpret_cast<uint64_t>(rdtsc) + 2);

    user_regs_struct second = at(rdtscp);
    const auto event = std::get<RdtscEvent>(*emulator.emulate(second, memory));
    EXPECT_TRUE(event.with_processor_id);
    EXPECT_GT(event.value, value);
    EXPECT_EQ(second.rcx, 0u);
    EXPECT_EQ(second.rip, reinterpret_cast<uint64_t>(rdtscp) + 3);
}

TEST_F(InstructionEmulatorFixture, LeavesOtherFaultsAlone) {
    static const uint8_t code[] = {0x48, 0x8b, 0x00}; // mov rax, [rax]
    user_regs_struct registers = at(code);
    const user_regs_struct before = registers;
    EXPECT_FALSE(emulator.emulate(registers, memory));
    EXPECT_EQ(registers.rip, before.rip);
    user_regs_struct unmapped{};
    unmapped.rip = 8;
    EXPECT_FALSE(emulator.emulate(unmapped, memory));
}

} // namespace
} // namespace hermit::tracer::virt
