#pragma once
// InstructionEmulator: executes, on behalf of the guest, the instructions that trap because hermit made
// them fault: CPUID (with CPUID faulting, arch_prctl(ARCH_SET_CPUID, 0)) and RDTSC/RDTSCP (with
// prctl(PR_SET_TSC, PR_TSC_SIGSEGV)). Both arrive as SIGSEGV with rip at the instruction. The emulator
// reads the bytes at rip, writes the virtual answer into the registers and moves rip past the
// instruction, so the signal can be suppressed. Works on a register set and a GuestMemory, so it is
// testable without a live guest.

#include "CpuidTable.h"
#include "VirtualClock.h"

#include "formats/Event.h"
#include "tracer/GuestMemory.h"

#include <sys/user.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <variant>

namespace hermit::tracer::virt {

enum class TrappedInstruction { Cpuid, Rdtsc, Rdtscp };

struct DecodedInstruction {
    TrappedInstruction kind;
    size_t length;
};

// Recognises 0f a2 (cpuid), 0f 31 (rdtsc) and 0f 01 f9 (rdtscp) at the start of `bytes`.
std::optional<DecodedInstruction> decode_trapped_instruction(std::span<const uint8_t> bytes);

class InstructionEmulator {
public:
    // Both must outlive the emulator.
    InstructionEmulator(const CpuidTable& cpuid, VirtualClock& clock) : cpuid_(cpuid), clock_(clock) {}

    // Emulates the instruction at registers.rip. Returns what the guest read, or nullopt (registers
    // untouched) when rip does not point at a trapped instruction, i.e. the SIGSEGV is a real fault.
    std::optional<std::variant<RdtscEvent, CpuidEvent>> emulate(user_regs_struct& registers,
                                                                GuestMemory& memory);

private:
    const CpuidTable& cpuid_;
    VirtualClock& clock_;
};

} // namespace hermit::tracer::virt
