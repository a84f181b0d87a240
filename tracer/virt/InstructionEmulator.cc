#include "InstructionEmulator.h"

#include <array>

namespace hermit::tracer::virt {

std::optional<DecodedInstruction> decode_trapped_instruction(std::span<const uint8_t> bytes) {
    if (bytes.size() < 2 || bytes[0] != 0x0f) {
        return std::nullopt;
    }
    if (bytes[1] == 0xa2) {
        return DecodedInstruction{TrappedInstruction::Cpuid, 2};
    }
    if (bytes[1] == 0x31) {
        return DecodedInstruction{TrappedInstruction::Rdtsc, 2};
    }
    if (bytes.size() >= 3 && bytes[1] == 0x01 && bytes[2] == 0xf9) {
        return DecodedInstruction{TrappedInstruction::Rdtscp, 3};
    }
    return std::nullopt;
}

std::optional<std::variant<RdtscEvent, CpuidEvent>> InstructionEmulator::emulate(user_regs_struct& registers,
                                                                                 GuestMemory& memory) {
    // Read the two opcode bytes first: a two-byte instruction may end right before an unmapped page.
    std::array<uint8_t, 3> bytes{};
    if (!memory.read(registers.rip, bytes.data(), 2)) {
        return std::nullopt;
    }
    size_t available = 2;
    if (bytes[1] == 0x01 && memory.read(registers.rip + 2, &bytes[2], 1)) {
        available = 3;
    }
    const auto decoded = decode_trapped_instruction(std::span(bytes.data(), available));
    if (!decoded) {
        return std::nullopt;
    }
    registers.rip += decoded->length;
    if (decoded->kind == TrappedInstruction::Cpuid) {
        CpuidEvent event;
        event.leaf = static_cast<uint32_t>(registers.rax);
        event.subleaf = static_cast<uint32_t>(registers.rcx);
        const CpuidRegisters answer = cpuid_.lookup(event.leaf, event.subleaf);
        event.eax = answer.eax;
        event.ebx = answer.ebx;
        event.ecx = answer.ecx;
        event.edx = answer.edx;
        registers.rax = answer.eax;
        registers.rbx = answer.ebx;
        registers.rcx = answer.ecx;
        registers.rdx = answer.edx;
        return event;
    }
    RdtscEvent event;
    event.value = clock_.next_tsc();
    event.with_processor_id = decoded->kind == TrappedInstruction::Rdtscp;
    registers.rax = event.value & 0xffffffffu;
    registers.rdx = event.value >> 32;
    if (event.with_processor_id) {
        // IA32_TSC_AUX as Linux sets it: (node << 12) | cpu, both 0 on the virtual CPU.
        registers.rcx = 0;
    }
    return event;
}

} // namespace hermit::tracer::virt
